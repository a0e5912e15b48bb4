/**
 * The process logger. Request bodies are never logged; `redactSensitive` is the second
 * line of defence should a secret or a personal field reach a log call anyway.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogLevel } from '../../config/config.js';
import { CENSOR, redactSensitive, SENSITIVE_FIELDS } from './redact.js';

/**
 * Readable lines for a person at a terminal, JSON for everything else (a supervisor, a file,
 * a log shipper). Logs go to stderr, so that is the stream asked.
 */
export function prettyByDefault(stream: { isTTY?: boolean } = process.stderr): boolean {
  return stream.isTTY === true;
}

export function createLogger(level: LogLevel, destination?: DestinationStream, options: { pretty?: boolean } = {}): Logger {
  const pretty = options.pretty ?? (destination === undefined && prettyByDefault());
  // pino-pretty as a stream in this process (not a worker transport): redaction has run
  // before it formats, and a crash loses no buffered line.
  const target = destination ?? (pretty ? undefined : pino.destination({ fd: 2, sync: false }));
  return pino(
    {
      level,
      // Before serializers run: a logged error's own fields are looked at too.
      formatters: { log: redactSensitive },
      // Child loggers' bindings skip the log formatter; exact top-level paths cost nothing
      // unless the field is there (wildcard paths cost every line).
      redact: { paths: [...SENSITIVE_FIELDS].map((field) => JSON.stringify([field])), censor: CENSOR },
      // The pid tells the processes of one service apart (COREGATE_WORKERS, several hosts' logs merged).
      base: { service: 'coregate', pid: process.pid },
    },
    pretty ? pinoPretty({ destination: target ?? 2, colorize: target === undefined, translateTime: 'SYS:HH:MM:ss.l', ignore: 'service', sync: true }) : target!,
  );
}
