/**
 * The process logger. Request bodies are never logged; `redactSensitive` is the second
 * line of defence should a secret or a personal field reach a log call anyway.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type PinoPretty from 'pino-pretty';
import type { LogLevel } from '../../config/config.js';
import { CENSOR, redactSensitive, SENSITIVE_FIELDS } from './redact.js';

const WARN = 40;
/** Lines are written in batches of this many bytes at least... */
const BATCH_BYTES = 4096;
/** ...or after this long, whichever comes first: a line is never held longer. */
const FLUSH_EVERY_MS = 1000;

/**
 * A file descriptor (stderr by default), written in batches: one write per line cost about
 * 12 µs of CPU (the main thread and libuv's pool), a batch of about 4 KB a fraction of that
 * per line. A line waits at most {@link FLUSH_EVERY_MS}; warnings and errors go at once
 * (`logMethod` below), and pino flushes what is left when the process exits. A hard kill
 * (SIGKILL, power loss) can lose the last second of info lines — never an audit row: the
 * audit log is in the database.
 */
export function batchedDestination(fd = 2): ReturnType<typeof pino.destination> {
  const stream = pino.destination({ fd, sync: false, minLength: BATCH_BYTES });
  const open = () => !(stream as { destroyed?: boolean }).destroyed;
  // sonic-boom ignores flush() while a write is in flight, and what was logged meanwhile would
  // wait for the next interval (three warnings in a row: the second and third waited up to
  // a second). So a flush asked for then is done when that write completes ('drain').
  // It replaces the stream's own flush, which pino's logger.flush() calls too.
  const writeBuffered = stream.flush.bind(stream);
  let flushOnDrain = false;
  const flush = () => {
    if (!open()) return;
    if (!(stream as { _writing?: boolean })._writing) return writeBuffered();
    if (flushOnDrain) return;
    flushOnDrain = true;
    stream.once('drain', () => {
      flushOnDrain = false;
      flush();
    });
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  return Object.assign(stream, { flush: (done?: (error?: Error) => void) => (flush(), done?.()) });
}

/**
 * Readable lines for a person at a terminal, JSON for everything else (a supervisor, a file,
 * a log shipper). Logs go to stderr, so that is the stream asked.
 */
export function prettyByDefault(stream: { isTTY?: boolean } = process.stderr): boolean {
  return stream.isTTY === true;
}

/** pino-pretty is loaded for a terminal only: a server under a supervisor writes JSON and never needs its code. */
function loadPinoPretty(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
}

export function createLogger(level: LogLevel, destination?: DestinationStream, options: { pretty?: boolean } = {}): Logger {
  const pretty = options.pretty ?? (destination === undefined && prettyByDefault());
  // pino-pretty as a stream in this process (not a worker transport): redaction has run
  // before it formats, and a crash loses no buffered line.
  const target = destination ?? (pretty ? undefined : batchedDestination());
  return pino(
    {
      level,
      // A warning or an error is written at once, not after the buffer's next flush.
      hooks: {
        logMethod(args, method, levelValue) {
          method.apply(this, args);
          if (levelValue >= WARN && target !== undefined && 'flush' in target) (target as { flush(): void }).flush();
        },
      },
      // Before serializers run: a logged error's own fields are looked at too.
      formatters: { log: redactSensitive },
      // Child loggers' bindings skip the log formatter; exact top-level paths cost nothing
      // unless the field is there (wildcard paths cost every line).
      redact: { paths: [...SENSITIVE_FIELDS].map((field) => JSON.stringify([field])), censor: CENSOR },
      // The pid tells the processes of one service apart (COREGATE_WORKERS, several hosts' logs merged).
      base: { service: 'coregate', pid: process.pid },
    },
    pretty ? loadPinoPretty()({ destination: target ?? 2, colorize: target === undefined, translateTime: 'SYS:HH:MM:ss.l', ignore: 'service', sync: true }) : target!,
  );
}
