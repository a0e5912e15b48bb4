/**
 * The HTTP side of the Fineract connector: one undici pool per connector, a deadline on
 * every call, the headers every Fineract call carries (built in one place), and the
 * failures every call shares (docs/cores/fineract.md#failures). Paths are given twice:
 * the path sent and its template (`GET /v1/clients/{id}`), which is all an error message
 * or a log line ever names.
 */
import { Pool, type Dispatcher } from 'undici';
import type { CoreCredentials } from '../../../domain/institution.js';
import {
  CoreBusy,
  CoreProtocolError,
  CoreUnavailable,
  type CoreCallContext,
  type CoreError,
} from '../../../ports/core-connector.js';
import { exchange, type Answer } from '../answer-exchange.js';
import { CallDeadline } from '../call-deadline.js';
import { HEADER_SAFE_PATTERN } from '../protocol.js';
import { transportFailure } from '../transport-failure.js';
import { traceHeaders } from '../../../ports/tracing.js';

export interface FineractHttpOptions {
  /** Fineract's context root, e.g. `https://fineract.bank.example/fineract-provider`. */
  readonly baseUrl: string;
  readonly credentials: CoreCredentials;
  readonly tenant: string;
  readonly timeoutMs: number;
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
  readonly connections?: number;
  readonly maxResponseBytes?: number;
}

/** One Fineract call: the path sent, and the template that names it in messages. */
export interface FineractRequest {
  readonly method: 'GET' | 'POST';
  /** Below the context root, e.g. `/api/v1/clients/42`. */
  readonly path: string;
  /** e.g. `GET /v1/clients/{id}`. */
  readonly template: string;
  readonly body?: string;
}

const HEADER_SAFE = new RegExp(HEADER_SAFE_PATTERN);
/** How long a platform is told to wait after Fineract answered 429 (its `Retry-After` is not read). */
const BUSY_RETRY_AFTER_SECONDS = 1;
/** Every Fineract call is a read: repeating one cannot do harm. */
const ALWAYS_SAFE = () => true;

/** The service user refused (401) or without the permission a call needs (403). */
export const CREDENTIALS_REFUSED = "Fineract refused the service user's credentials";

/**
 * The headers of every call to Fineract: the service user (`Authorization: Basic`), the
 * tenant, JSON, and the request's id. The one place they are built.
 */
function fineractHeaders(
  identity: { readonly authorization: string; readonly tenant: string },
  context: CoreCallContext,
  withBody: boolean,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: identity.authorization,
    'fineract-platform-tenantid': identity.tenant,
    accept: 'application/json',
    // W3C Trace Context of the core call's span (docs/operations.md, "Observability"); none when tracing is off.
    ...traceHeaders(),
  };
  if (withBody) headers['content-type'] = 'application/json';
  if (HEADER_SAFE.test(context.requestId)) headers['x-request-id'] = context.requestId;
  return headers;
}

export class FineractHttp {
  private readonly origin: string;
  private readonly prefix: string;
  private readonly pool: Dispatcher;
  private readonly identity: { readonly authorization: string; readonly tenant: string };
  private readonly limits: { readonly timeoutMs: number; readonly maxResponseBytes: number };

  constructor(options: FineractHttpOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new TypeError('the Fineract URL must be http: or https:');
    if (!HEADER_SAFE.test(options.tenant)) throw new TypeError('the Fineract tenant must be visible ASCII characters');
    this.origin = base.origin;
    this.prefix = base.pathname.replace(/\/+$/, '');
    const { username, password } = options.credentials;
    this.identity = {
      authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
      tenant: options.tenant,
    };
    this.limits = { timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024 };
    this.pool = new Pool(this.origin, {
      connections: options.connections ?? 16,
      connect: { timeout: options.timeoutMs, ...options.tls },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  /** Sends `request`; rejects with the typed failure when no answer came (deadline, connection). */
  async send(request: FineractRequest, context: CoreCallContext, timeoutMs = this.limits.timeoutMs): Promise<Answer> {
    const deadline = new CallDeadline(timeoutMs);
    try {
      return await exchange(
        this.pool,
        {
          origin: this.origin,
          path: `${this.prefix}${request.path}`,
          method: request.method,
          headers: fineractHeaders(this.identity, context, request.body !== undefined),
          body: request.body ?? null,
        },
        { maxBytes: this.limits.maxResponseBytes, deadline },
      );
    } catch (error) {
      throw transportFailure(error, deadline, { ...this.limits, timeoutMs }, ALWAYS_SAFE);
    } finally {
      deadline.release();
    }
  }

  /** The answer's JSON, or a protocol error naming the call. */
  json(answer: Answer, request: FineractRequest): unknown {
    try {
      return JSON.parse(answer.text);
    } catch {
      throw new CoreProtocolError(`the ${answer.status} answer to ${request.template} is not JSON`, true);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * The failure an answer other than 200 means, for the statuses every call shares: the
 * service user refused (401/403: a configuration problem, never the customer's, so not a
 * rejected session), Fineract shedding load (429), Fineract failing (5xx). A 404 means
 * something different per call: the caller decides it before asking here.
 */
export function failureOf(answer: Answer, request: FineractRequest): CoreError {
  const { status } = answer;
  if (status === 401 || status === 403)
    return new CoreProtocolError(`${CREDENTIALS_REFUSED} (${status} to ${request.template})`, true);
  if (status === 429) return new CoreBusy(BUSY_RETRY_AFTER_SECONDS);
  if (status >= 500 && status <= 599)
    return new CoreUnavailable(`Fineract answered ${status} to ${request.template}`, true);
  return new CoreProtocolError(`unexpected answer ${status} to ${request.template}`, true);
}
