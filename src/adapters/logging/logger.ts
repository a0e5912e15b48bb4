/**
 * The process logger. Request bodies are never logged; `redact` is the second
 * line of defence should a secret or a personal field reach a log call anyway.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogLevel } from '../../config/config.js';

const SENSITIVE_FIELDS = [
  'authorization',
  'cookie',
  'client_secret',
  'clientSecret',
  'secret',
  'access_token',
  'refresh_token',
  'token',
  'password',
  'socialSecurityNumber',
  'accountNumber',
  'birthDay',
  'demographics',
  'delegateReferenceId',
];

export const REDACTED_PATHS = [
  ...SENSITIVE_FIELDS,
  ...SENSITIVE_FIELDS.map((field) => `*.${field}`),
  ...SENSITIVE_FIELDS.map((field) => `*.*.${field}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
];

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
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The pid tells the processes of one service apart (COREGATE_WORKERS, several hosts' logs merged).
      base: { service: 'coregate', pid: process.pid },
    },
    pretty ? pinoPretty({ destination: target ?? 2, colorize: target === undefined, translateTime: 'SYS:HH:MM:ss.l', ignore: 'service', sync: true }) : target!,
  );
}
