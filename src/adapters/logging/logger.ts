/**
 * The process logger. Request bodies are never logged; `redactSensitive` is the second
 * line of defence should a secret or a personal field reach a log call anyway.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type PinoPretty from 'pino-pretty';
import type { LogLevel } from '../../config/config.js';
import { CENSOR, redactSensitive, SENSITIVE_FIELDS } from './redact.js';
import { activeTraceIds } from '../../ports/tracing.js';

const WARN = 40;
/** Lines are handed to the file in batches of this many characters at least... */
const BATCH_CHARS = 16_384;
/** ...or after this long, whichever comes first: a line is never held longer. */
const FLUSH_EVERY_MS = 1000;

/** Gives up on a descriptor that stays full (a stuck reader) after about this long. */
const EXIT_WRITE_PATIENCE_MS = 1000;

/**
 * Writes `text` before returning, for the last lines of an exiting process: an asynchronous
 * write would never finish. A full pipe (EAGAIN) is waited on for a while: stderr is a
 * non-blocking pipe as soon as anything in the process (or, for a cluster worker, in the
 * primary it shares the pipe with) has used `process.stderr`, and a reader a little behind
 * would otherwise lose the last lines. The wait sleeps (`Atomics.wait`), it does not spin;
 * what still cannot be written after it is dropped, so that a log reader's failure never
 * changes the exit status (sonic-boom's own `flushSync` would wait for ever).
 */
function writeBeforeExit(fd: number, text: string): void {
  let rest = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; rest.length > 0;) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || waited >= EXIT_WRITE_PATIENCE_MS) return;
      Atomics.wait(pause, 0, 0, 10);
      waited += 10;
    }
  }
}

/**
 * A file descriptor (stderr by default), written in batches: an asynchronous write costs the
 * server's CPU whatever its size (libuv's pool thread, the switches to it and back), so the
 * fewer the better, and a batch of 16 K characters costs less per request than a 4 K one on
 * both hot paths (docs/benchmarks.md). A line waits at most
 * {@link FLUSH_EVERY_MS}; warnings and errors go at once (`logMethod` below), and what is
 * held is written when the process exits (pino ends the stream: `flushSync`, `end`). A hard
 * kill (SIGKILL, power loss) can lose the last second of info lines — never an audit row:
 * the audit log is in the database.
 *
 * The batch is a string of its own, handed to sonic-boom whole, rather than sonic-boom's own
 * batching (`pino.destination({ minLength })`): that library way measures the byte length of
 * its growing buffer on every line, which copies the buffer each time: compared side by side,
 * more of a token request than a library's way may cost here; the figures are in
 * docs/benchmarks.md (the token target). sonic-boom, with no `minLength`, writes what it is given as soon as its previous
 * write is done, and keeps its handling of the descriptor (partial writes, EAGAIN, a closed
 * pipe). At exit, the batch not yet handed over is written here ({@link writeBeforeExit}),
 * after what sonic-boom still holds.
 */
export function batchedDestination(fd = 2): ReturnType<typeof pino.destination> {
  const stream = pino.destination({ fd, sync: false });
  const open = () => !(stream as { destroyed?: boolean }).destroyed;
  const writeNow = stream.write.bind(stream);
  const flushSyncNow = stream.flushSync.bind(stream);
  const endNow = stream.end.bind(stream);
  let batch = '';
  const handOver = () => {
    if (batch === '' || !open()) return;
    const lines = batch;
    batch = '';
    writeNow(lines);
  };
  setInterval(handOver, FLUSH_EVERY_MS).unref();
  // The stream itself, not a wrapper: pino registers this object to be ended at exit.
  return Object.assign(stream, {
    write(line: string): boolean {
      batch += line;
      if (batch.length >= BATCH_CHARS) handOver();
      return true;
    },
    flush(done?: (error?: Error) => void): void {
      handOver();
      done?.();
    },
    // At exit (pino calls it): what sonic-boom holds first, it is older; then the batch,
    // written here and now. Handed to sonic-boom, it would start an asynchronous write that
    // an exiting process does not wait for (a cluster worker lost its last lines that way).
    flushSync(): void {
      if (!open()) return;
      flushSyncNow();
      const lines = batch;
      batch = '';
      if (lines !== '') writeBeforeExit(fd, lines);
    },
    end(): void {
      handOver();
      endNow();
    },
  });
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

export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  options: { pretty?: boolean; traceIds?: boolean } = {},
): Logger {
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
      // With tracing on, a line written inside a span names it (`trace_id`, `span_id`): a trace's
      // log lines are found from the trace and the other way round. Without tracing, no mixin at all. (pino merges the line into what the mixin returns: a new object each time.)
      ...(options.traceIds === true ? { mixin: () => activeTraceIds() ?? {} } : {}),
    },
    pretty
      ? loadPinoPretty()({
          destination: target ?? 2,
          colorize: target === undefined,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'service',
          sync: true,
        })
      : target!,
  );
}
