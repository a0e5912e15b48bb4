/**
 * The HTTP side of the Fineract connector: the shared core HTTP client
 * (`../core-http-client.ts`: pool, deadline, the failures every call shares) with the
 * identity every Fineract call carries (the service user and the tenant), and the statuses
 * every Fineract call shares (docs/cores/fineract.md#failures). Paths are given twice: the
 * path sent and its template (`GET /v1/clients/{id}`), which is all an error message or a log
 * line ever names.
 */
import type { CoreCredentials } from '../../../domain/institution.js';
import { CoreProtocolError, CoreUnavailable, type CoreError } from '../../../ports/core-connector.js';
import { CoreHttpClient, type Answer, type CoreHttpRequest } from '../core-http-client.js';
import { HEADER_SAFE_PATTERN } from '../protocol.js';
import { coreBusy } from '../transport-failure.js';

export interface FineractHttpOptions {
  /** Fineract's context root, e.g. `https://fineract.bank.example/fineract-provider`. */
  readonly baseUrl: string;
  readonly credentials: CoreCredentials;
  readonly tenant: string;
  readonly timeoutMs: number;
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer } | undefined;
  readonly connections?: number | undefined;
  readonly maxResponseBytes?: number;
}

/** One Fineract call: the path sent, and the template that names it in messages. */
export interface FineractRequest extends CoreHttpRequest {
  readonly method: 'GET' | 'POST';
  /** Below the context root, e.g. `/api/v1/clients/42`. */
  readonly path: string;
  /** e.g. `GET /v1/clients/{id}`. */
  readonly template: string;
}

const HEADER_SAFE = new RegExp(HEADER_SAFE_PATTERN);

/** The service user refused (401) or without the permission a call needs (403). */
export const CREDENTIALS_REFUSED = "Fineract refused the service user's credentials";

/** The core HTTP client for one Fineract: every call as the service user (`Authorization: Basic`), in the tenant. */
export function fineractHttpClient(options: FineractHttpOptions): CoreHttpClient {
  if (!HEADER_SAFE.test(options.tenant)) throw new TypeError('the Fineract tenant must be visible ASCII characters');
  const { username, password } = options.credentials;
  return new CoreHttpClient({
    baseUrl: options.baseUrl,
    baseUrlName: 'the Fineract URL',
    timeoutMs: options.timeoutMs,
    connections: options.connections ?? 16,
    maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
    identityHeaders: {
      authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
      'fineract-platform-tenantid': options.tenant,
    },
    tls: options.tls,
  });
}

/** Why Fineract refused, in words an operator acts on; also what `core check` prints. */
export const FINERACT_REFUSALS = {
  credentials: CREDENTIALS_REFUSED,
  tenant: (tenant: string) =>
    `Fineract does not know the tenant "${tenant}" (400 from its tenant filter): check the institution's --fineract-tenant`,
  readOnly:
    'Fineract answered 405 to a POST: a read-only Fineract node refuses every POST; point coregate at a node that takes writes, or set --fineract-ssn-lookup identifier-search (a GET)',
} as const;

/**
 * Whether a 400 is Fineract's tenant filter refusing the tenant: it answers through the
 * servlet's error page (`response.sendError`), not Fineract's error body, which always
 * carries `userMessageGlobalisationCode` (docs/cores/fineract.md#failures).
 */
export function isTenantRefusal(answer: Answer): boolean {
  if (answer.status !== 400) return false;
  return !/"userMessageGlobalisationCode"\s*:/.test(answer.text);
}

/**
 * The failure an answer other than 200 means, for the statuses every call shares: the
 * service user refused (401/403: a configuration problem, never the customer's, so not a
 * rejected session), an unknown tenant (a 400 from the tenant filter), a read-only node
 * (405 to a POST), Fineract shedding load (429), Fineract failing (5xx). A 404 means
 * something different per call: the caller decides it before asking here.
 */
export function failureOf(answer: Answer, request: FineractRequest, tenant: string): CoreError {
  const { status } = answer;
  if (status === 401 || status === 403)
    return new CoreProtocolError(`${CREDENTIALS_REFUSED} (${status} to ${request.template})`, true);
  if (isTenantRefusal(answer)) return new CoreProtocolError(`${FINERACT_REFUSALS.tenant(tenant)}`, true);
  if (status === 405 && request.method === 'POST')
    return new CoreProtocolError(`${FINERACT_REFUSALS.readOnly} (${request.template})`, true);
  if (status === 429) return coreBusy();
  if (status >= 500 && status <= 599)
    return new CoreUnavailable(`Fineract answered ${status} to ${request.template}`, true);
  return new CoreProtocolError(`unexpected answer ${status} to ${request.template}`, true);
}
