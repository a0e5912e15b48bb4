/**
 * The one HTTP client every core protocol speaks through (the reference protocol's and
 * Fineract's): a kept-alive undici pool, a deadline on every call, the headers every call
 * carries (the protocol's identity, `Accept`, the request id, the W3C trace context), the
 * failures every call shares (deadline, connection, answer too large) and reading an answer
 * as JSON. A protocol keeps only its own paths and its table of answers.
 *
 * Messages name the call and what went wrong, never a value sent or received
 * (docs/core-protocol.md#4-errors, docs/cores/fineract.md#failures).
 */
import { Pool, type Dispatcher } from 'undici';
import { CoreProtocolError, type CoreCallContext } from '../../ports/core-connector.js';
import { traceHeaders } from '../../ports/tracing.js';
import { exchange, type Answer } from './answer-exchange.js';
import { CallDeadline } from './call-deadline.js';
import { HEADER_SAFE_PATTERN } from './protocol.js';
import { transportFailure } from './transport-failure.js';

export type { Answer } from './answer-exchange.js';

/** Deadline of a readiness check, shorter than a call's when the configured call timeout is long. */
const PING_TIMEOUT_MS = 2000;

/** Anything that may go into a header: visible ASCII. */
const HEADER_SAFE = new RegExp(HEADER_SAFE_PATTERN);
const ALWAYS_SAFE = () => true;

export interface CoreHttpClientOptions {
  /** The core's base URL; the protocol's paths go below its path. */
  readonly baseUrl: string;
  /** What the base URL is called in the refusal of one that is not http(s), e.g. `the core base URL`. */
  readonly baseUrlName: string;
  /** Deadline of each call, connection included. */
  readonly timeoutMs: number;
  /** Size of the keep-alive pool. Ignored with `dispatcher`. */
  readonly connections: number;
  /** Largest answer read. */
  readonly maxResponseBytes: number;
  /** Headers every call carries: the protocol's identity (an API key; a service user and tenant). */
  readonly identityHeaders: Readonly<Record<string, string>>;
  /** TLS to an `https:` core: a CA to trust instead of the system's, a client certificate and key (PEM). Ignored with `dispatcher`. */
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer } | undefined;
  /** A dispatcher to use instead of an own pool (an Agent with TLS options, a MockAgent); never closed here. */
  readonly dispatcher?: Dispatcher | undefined;
}

/** One call: the method, the path below the base URL's path, headers of this call alone, a JSON body. */
export interface CoreHttpRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: string | undefined;
}

export interface SendOptions {
  /** This call's deadline instead of the configured one (a readiness check's). */
  readonly timeoutMs?: number;
  /** Whether the call may be repeated, knowing whether it may have reached the core; always by default (a read). */
  readonly retrySafe?: (reachedCore: boolean) => boolean;
}

export class CoreHttpClient {
  private readonly origin: string;
  private readonly prefix: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly identityHeaders: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;

  constructor(options: CoreHttpClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new TypeError(`${options.baseUrlName} must be http: or https:`);
    this.origin = base.origin;
    this.prefix = base.pathname.replace(/\/+$/, '');
    this.identityHeaders = options.identityHeaders;
    this.timeoutMs = options.timeoutMs;
    this.maxResponseBytes = options.maxResponseBytes;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Pool(this.origin, {
        connections: options.connections,
        connect: { timeout: options.timeoutMs, ...options.tls },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
  }

  /**
   * Sends `request` and reads the whole answer, whatever its status; rejects with the typed
   * failure when no answer came (deadline, connection, an answer over the size limit).
   */
  async send(request: CoreHttpRequest, context: CoreCallContext, options?: SendOptions): Promise<Answer> {
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const deadline = new CallDeadline(timeoutMs);
    try {
      return await exchange(
        this.dispatcher,
        {
          origin: this.origin,
          path: `${this.prefix}${request.path}`,
          method: request.method,
          headers: this.headers(request, context),
          body: request.body ?? null,
        },
        { maxBytes: this.maxResponseBytes, deadline },
      );
    } catch (error) {
      throw transportFailure(
        error,
        deadline,
        { timeoutMs, maxResponseBytes: this.maxResponseBytes },
        options?.retrySafe ?? ALWAYS_SAFE,
      );
    } finally {
      deadline.release();
    }
  }

  /** A readiness check: `GET path` with the short readiness deadline. */
  ping(path: string, context: CoreCallContext): Promise<Answer> {
    return this.send({ method: 'GET', path }, context, { timeoutMs: Math.min(this.timeoutMs, PING_TIMEOUT_MS) });
  }

  /** The answer's JSON, or a protocol error naming the call (`call`, e.g. `GET /v1/clients/{id}`) and never the body. */
  json(answer: Answer, call: string, retrySafe = true): unknown {
    try {
      return JSON.parse(answer.text);
    } catch {
      throw new CoreProtocolError(`the ${answer.status} answer to ${call} is not JSON`, retrySafe);
    }
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** The one place a call's headers are built. */
  private headers(request: CoreHttpRequest, context: CoreCallContext): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    // Copied, not spread: every core call builds these, and a spread is a slow copy in V8.
    for (const name in this.identityHeaders) headers[name] = this.identityHeaders[name]!;
    if (request.headers) for (const name in request.headers) headers[name] = request.headers[name]!;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    // The W3C trace context of this call's span (none while tracing is off).
    const trace = traceHeaders();
    for (const name in trace) headers[name] = trace[name]!;
    if (HEADER_SAFE.test(context.requestId)) headers['x-request-id'] = context.requestId;
    return headers;
  }
}
