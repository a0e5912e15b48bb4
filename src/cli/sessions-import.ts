/**
 * `coregate sessions import`: registers a platform's existing customers from a JSON Lines
 * file (docs/operations.md#importing-customers). Registration is the platform's operation,
 * not an operator's: the command is a client of the public API like any platform, with the
 * platform's client credentials read from a file (never from the command line), through
 * `@coregate/client`'s `registerCustomers` — its pace, its waits for `Retry-After`, its
 * per-item results. Each line's result names the line and the customerId, never what the
 * line held besides.
 */
import { createReadStream, createWriteStream, readFileSync, statSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { BulkRegistrationItem, BulkRegistrationProgress, CoregateClient, CoregateError } from '@coregate/client';
import { UsageError, type CliIo } from './io.js';

export interface ImportOptions {
  /** The JSON Lines file, or `-` for stdin. */
  readonly file: string;
  /** A JSON file with `client_id` and `client_secret` (what `clients create --json` prints). */
  readonly credentials: string;
  readonly url: string;
  readonly concurrency: number;
  /** Where the per-line results go; stdout when absent. */
  readonly results: string | undefined;
  /** How often progress is written to stderr. */
  readonly progressEveryMs?: number;
}

/** What one line came to, as written to the results (JSON Lines). */
type LineResult =
  | { readonly line: number; readonly customerId?: string; readonly ok: true; readonly customerKey: string }
  | {
      readonly line: number;
      readonly customerId?: string;
      readonly ok: false;
      /** The HTTP status; absent for a line that was never sent. */
      readonly status?: number;
      readonly reason: string;
      readonly message: string;
      readonly errors?: unknown;
      readonly requestId?: string;
    };

export interface ImportSummary {
  /** Lines that were not blank. */
  lines: number;
  registered: number;
  /** Lines coregate refused, and lines that were not a registration at all. */
  failed: number;
  /** Failed lines by reason (`invalid_line` for those never sent). */
  reasons: Record<string, number>;
  /** Answers 429/503 waited out and sent again. */
  retried: number;
  seconds: number;
  perSecond: number;
  /** Set when the import stopped before the end of the file: why. */
  stopped?: string;
}

interface Credentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Reads the credentials file; says which field is missing, never what the file holds. */
function readCredentials(path: string, io: CliIo): Credentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code ? `--credentials ${path}: cannot read it (${code})` : `--credentials ${path}: not a JSON document`,
    );
  }
  const record = (parsed ?? {}) as Record<string, unknown>;
  const clientId = record['client_id'];
  const clientSecret = record['client_secret'];
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string' || clientId === '' || clientSecret === '') {
    throw new UsageError(
      `--credentials ${path}: expected client_id and client_secret, as \`coregate clients create --json\` prints them`,
    );
  }
  // A secret readable by others is a secret shared with them: say so, as ssh does.
  if ((statSync(path).mode & 0o077) !== 0) io.err(`warning: ${path} is readable by other users; chmod 600 it`);
  return { clientId, clientSecret };
}

/** The failure of one line as written: the envelope's reason and message, the field errors, the request id. */
function failure(line: number, customerId: string | undefined, error: CoregateError): LineResult {
  const reason = error.data['reason'];
  const requestId = error.data['requestId'];
  return {
    line,
    ...(customerId === undefined ? {} : { customerId }),
    ok: false,
    ...(error.status === 0 ? {} : { status: error.status }),
    reason: typeof reason === 'string' ? reason : error.className,
    message: error.message,
    ...(error.data['errors'] === undefined ? {} : { errors: error.data['errors'] }),
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

/** Where results are written: stdout through the CLI's io, or a file with back-pressure. */
interface ResultSink {
  write(result: LineResult): Promise<void>;
  close(): Promise<void>;
}

function resultSink(io: CliIo, path: string | undefined): ResultSink {
  if (path === undefined) {
    return {
      write: (result) => {
        io.out(JSON.stringify(result));
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
  }
  const stream: WriteStream = createWriteStream(path, { flags: 'w', mode: 0o600 });
  return {
    async write(result) {
      if (!stream.write(`${JSON.stringify(result)}\n`)) await once(stream, 'drain');
    },
    async close() {
      stream.end();
      await once(stream, 'close');
    },
  };
}

function describeProgress(summary: ImportSummary, progress: BulkRegistrationProgress | undefined): string {
  const wait =
    progress?.pausedUntil === undefined
      ? ''
      : `, waiting ${Math.ceil((progress.pausedUntil - Date.now()) / 1000)} s as coregate asked`;
  return `import: ${summary.registered + summary.failed} of ${summary.lines} lines done (${summary.registered} registered, ${summary.failed} failed), ${progress?.inFlight ?? 0} in flight at ${progress?.concurrency ?? 0} at a time${wait}`;
}

export function summaryText(summary: ImportSummary): string {
  const reasons = Object.entries(summary.reasons)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return [
    `lines: ${summary.lines}`,
    `registered: ${summary.registered}`,
    `failed: ${summary.failed}${reasons ? ` (${reasons})` : ''}`,
    `retried after 429/503: ${summary.retried}`,
    `seconds: ${summary.seconds}`,
    `per second: ${summary.perSecond}`,
    ...(summary.stopped ? [`stopped: ${summary.stopped}`] : []),
  ].join('\n');
}

/**
 * Runs the import; resolves with the summary, also when it stopped early (`stopped`).
 * Invalid lines and refused registrations are results, never a reason to stop.
 */
export async function importRegistrations(
  options: ImportOptions,
  io: CliIo,
  signal: AbortSignal,
): Promise<ImportSummary> {
  const credentials = readCredentials(options.credentials, io);
  // Loaded here: the other commands never need the client package.
  const { CoregateClient } = await import('@coregate/client');
  const client: CoregateClient = new CoregateClient({
    baseUrl: options.url,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
  });
  const started = Date.now();
  const summary: ImportSummary = {
    lines: 0,
    registered: 0,
    failed: 0,
    reasons: {},
    retried: 0,
    seconds: 0,
    perSecond: 0,
  };
  const count = (result: LineResult) => {
    if (result.ok) summary.registered += 1;
    else {
      summary.failed += 1;
      summary.reasons[result.reason] = (summary.reasons[result.reason] ?? 0) + 1;
    }
  };
  /** Line numbers of the registrations handed to the batch and not settled yet, by the batch's index. */
  const lineOf = new Map<number, number>();
  const invalid: LineResult[] = [];

  const input = options.file === '-' ? process.stdin : createReadStream(options.file);
  const opened = options.file === '-' ? Promise.resolve() : once(input, 'open').then(() => undefined);
  await opened.catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--file ${options.file}: cannot read it (${error.code ?? error.message})`);
  });
  const lines = createInterface({ input, crlfDelay: Infinity });
  // Only once the input opened: a mistyped --file leaves no empty results file behind.
  const sink = resultSink(io, options.results);
  async function* registrations(): AsyncGenerator<BulkRegistrationItem> {
    let line = 0;
    let index = 0;
    for await (const text of lines) {
      line += 1;
      if (text.trim() === '') continue;
      summary.lines += 1;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // The parser's message quotes the line, which may hold personal data: a message of our own.
        invalid.push({ line, ok: false, reason: 'invalid_line', message: 'not valid JSON' });
        continue;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        invalid.push({
          line,
          ok: false,
          reason: 'invalid_line',
          message: 'not a JSON object (expected the body of POST /core/sessions)',
        });
        continue;
      }
      lineOf.set(index++, line);
      yield parsed as BulkRegistrationItem;
    }
  }

  let latest: BulkRegistrationProgress | undefined;
  const ticker = setInterval(() => io.err(describeProgress(summary, latest)), options.progressEveryMs ?? 5_000);
  ticker.unref();
  const flushInvalid = async () => {
    for (const result of invalid.splice(0)) {
      count(result);
      await sink.write(result);
    }
  };
  try {
    const batch = client.registerCustomers(registrations(), {
      concurrency: options.concurrency,
      signal,
      onProgress: (progress) => {
        latest = progress;
        summary.retried = progress.throttled;
      },
    });
    for await (const result of batch) {
      await flushInvalid();
      const line = lineOf.get(result.index)!;
      lineOf.delete(result.index);
      const written: LineResult = result.ok
        ? {
            line,
            ...(result.customerId === undefined ? {} : { customerId: result.customerId }),
            ok: true,
            customerKey: result.customerKey,
          }
        : failure(line, result.customerId, result.error);
      count(written);
      await sink.write(written);
    }
    await flushInvalid();
  } catch (error) {
    await flushInvalid();
    summary.stopped = stopReason(error, signal, lineOf);
  } finally {
    clearInterval(ticker);
    lines.close();
    if (input !== process.stdin) input.destroy();
    await sink.close();
  }
  summary.seconds = Math.round((Date.now() - started) / 100) / 10;
  summary.perSecond =
    summary.seconds > 0
      ? Math.round((summary.registered + summary.failed) / summary.seconds)
      : summary.registered + summary.failed;
  return summary;
}

/** Why the import stopped early, in words for the operator. */
function stopReason(error: unknown, signal: AbortSignal, pending: ReadonlyMap<number, number>): string {
  const inFlight = [...pending.values()].sort((a, b) => a - b);
  const unsure =
    inFlight.length === 0
      ? ''
      : `; lines ${inFlight.join(', ')} were being registered and may or may not be (registering them again is harmless)`;
  if (signal.aborted) return `interrupted${unsure}`;
  const { status, error: oauthError, message } = error as Partial<CoregateError>;
  const what =
    oauthError !== undefined
      ? `the token endpoint refused the client (${oauthError}): check the credentials file`
      : status !== undefined
        ? `coregate refused the client (${status}): ${message}`
        : `${(error as Error)?.message ?? String(error)}`;
  return `${what}${unsure}`;
}
