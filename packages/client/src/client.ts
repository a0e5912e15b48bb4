/**
 * `CoregateClient` (CONTRACT §10): the gateway's operations with the token,
 * retry and error handling every platform would otherwise write itself.
 */
import {
  BulkRegistration,
  registrationBody,
  type BulkRegistrationItem,
  type BulkRegistrationResult,
  type RegisterCustomersOptions,
} from './bulk-registration.js';
import { callSignal, pause } from './call-signal.js';
import { CoregateError, namesForStatus } from './errors.js';
import { readJson } from './read-json.js';
import { parseRetryAfter, retryDelay, type RetryLimits } from './retry-policy.js';
import type { AccountRecord, CustomerStatus, Deregistration, RegisterCustomerInput, Registration } from './schema.js';
import { TokenSource } from './token-source.js';
import { ClientAssertionSigner, DpopSigner, type PrivateKeyInput } from './proofs.js';
import type { AbortSignalLike, FetchFunction, FetchResponse } from './platform-types.js';

export interface CoregateClientOptions {
  /** Where coregate serves `/core/*`, e.g. `https://gateway.example.com`. */
  readonly baseUrl: string;
  readonly clientId: string;
  /** Used only to request tokens; never logged, never part of an error. Give this or `privateKey`. */
  readonly clientSecret?: string;
  /**
   * `private_key_jwt` (RFC 7523) instead of a secret: the private key whose public half is in the
   * client's registered JWKS (Ed25519, P-256 or RSA; a `KeyObject`, PEM or private JWK).
   */
  readonly privateKey?: PrivateKeyInput;
  /** The `kid` of `privateKey` in the registered JWKS (needed when it holds several keys, as during a rotation). */
  readonly privateKeyId?: string;
  /**
   * DPoP-bound tokens (RFC 9449): `true` makes a P-256 key for this client's life; or give the
   * private key to use. Every request then carries a fresh proof.
   */
  readonly dpop?: boolean | { readonly privateKey: PrivateKeyInput };
  /** Where `/oauth2/token` is served; defaults to `baseUrl`. */
  readonly authUrl?: string;
  /** The scope to request; defaults to `core/main`. */
  readonly scope?: string;
  /** Longest time one call may take, retries and waits included; default 30 000 ms. */
  readonly timeoutMs?: number;
  /** How often a failed request is tried again (429/503, and 502 on GET); default 3. */
  readonly maxRetries?: number;
  /** Longest single wait for a retry: a `Retry-After` above it fails at once; default 30 000 ms. */
  readonly maxRetryWaitMs?: number;
  /** The fetch to use (a proxy agent, instrumentation); defaults to the global one. */
  readonly fetch?: FetchFunction;
  /** The current time in ms, for token expiry; defaults to `Date.now`. */
  readonly now?: () => number;
}

/** Options of one call. */
export interface CallOptions {
  /** Cancels the call; it then rejects with the signal's reason. */
  readonly signal?: AbortSignalLike;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
}

type Method = 'GET' | 'POST' | 'DELETE';

function endpoint(base: string, path: string): string {
  return new URL(path, base.endsWith('/') ? base : `${base}/`).toString();
}

/** A 401 that says the access token itself is bad (RFC 6750 §3.1), not the customer. */
function isInvalidToken(response: FetchResponse): boolean {
  return response.status === 401 && /error="invalid_token"/.test(response.headers.get('www-authenticate') ?? '');
}

/** The gateway's envelope (CONTRACT §3) as an error; a body without one gets the status's names. */
function envelopeError(
  status: number,
  body: Record<string, unknown> | undefined,
  retryAfterMs: number | undefined,
): CoregateError {
  const [fallbackName, fallbackClass] = namesForStatus(status);
  const text = (key: string, fallback: string) => (typeof body?.[key] === 'string' ? body[key] : fallback);
  const data = body?.['data'];
  return new CoregateError({
    status,
    name: text('name', fallbackName),
    className: text('className', fallbackClass),
    message: text('message', `coregate answered ${status}`),
    data: data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {},
    ...(retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
  });
}

export class CoregateClient {
  readonly #baseUrl: string;
  readonly #tokens: TokenSource;
  readonly #fetch: FetchFunction;
  readonly #timeoutMs: number;
  readonly #limits: RetryLimits;
  readonly #now: () => number;
  readonly #dpop: DpopSigner | undefined;

  constructor(options: CoregateClientOptions) {
    if (!options.baseUrl || !options.clientId || (!options.clientSecret && !options.privateKey)) {
      throw new TypeError('CoregateClient needs baseUrl, clientId and clientSecret (or privateKey)');
    }
    if (options.clientSecret && options.privateKey)
      throw new TypeError('CoregateClient takes clientSecret or privateKey, not both');
    this.#dpop =
      options.dpop === true ? new DpopSigner() : options.dpop ? new DpopSigner(options.dpop.privateKey) : undefined;
    this.#baseUrl = options.baseUrl;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#limits = { maxRetries: options.maxRetries ?? 3, maxRetryWaitMs: options.maxRetryWaitMs ?? 30_000 };
    this.#now = options.now ?? Date.now;
    this.#tokens = new TokenSource({
      tokenUrl: endpoint(options.authUrl ?? options.baseUrl, 'oauth2/token'),
      clientId: options.clientId,
      clientSecret: options.clientSecret || undefined,
      assertions: options.privateKey
        ? new ClientAssertionSigner(options.clientId, options.privateKey, options.privateKeyId)
        : undefined,
      dpop: this.#dpop,
      scope: options.scope ?? 'core/main',
      timeoutMs: this.#timeoutMs,
      limits: this.#limits,
      fetch: this.#fetch,
      now: this.#now,
    });
  }

  /**
   * Registers a customer of your platform with the core (`POST /core/sessions`):
   * `{customerId, demographics}` or `{customerId, customer: {customerKey}}`.
   * Repeating it for the same customer is harmless; another core customer under the
   * same customerId is a 409 Conflict.
   */
  registerCustomer(input: RegisterCustomerInput, options: CallOptions = {}): Promise<Registration> {
    return this.#call<Registration>('POST', 'core/sessions', registrationBody(input).body, options);
  }

  /**
   * Registers many customers, `concurrency` at a time (16 unless set), for onboarding an
   * existing customer base. `registrations` is any iterable or async iterable of
   * `registerCustomer` inputs or wire bodies (`{customer | demographics, registration: {customerId}}`),
   * read one item at a time as the batch goes. Iterate the result for one
   * `BulkRegistrationResult` per item, in the order they settle:
   *
   * ```ts
   * for await (const result of cg.registerCustomers(customers, { concurrency: 16 })) {
   *   if (!result.ok) console.error(result.index, result.customerId, result.error.data['reason']);
   * }
   * ```
   *
   * 429 and 503 with `Retry-After` are waited out and sent again, the whole batch slowing
   * down (never an item's failure); errors about the client (its credentials, token or
   * permissions) end the batch by throwing; every other error is the item's result.
   * Nothing is sent until the iteration starts; `break` or `options.signal` stops it.
   */
  registerCustomers(
    registrations: Iterable<BulkRegistrationItem> | AsyncIterable<BulkRegistrationItem>,
    options: RegisterCustomersOptions = {},
  ): AsyncIterableIterator<BulkRegistrationResult, undefined> {
    // Each attempt is sent once: the batch waits out 429/503 itself, for all its registrations together.
    const once: RetryLimits = { maxRetries: 0, maxRetryWaitMs: this.#limits.maxRetryWaitMs };
    const timeoutMs = options.timeoutMs;
    return new BulkRegistration(registrations, options, (body, signal) =>
      this.#call<Registration>(
        'POST',
        'core/sessions',
        body,
        { signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
        once,
      ),
    );
  }

  /** The accounts of a registered customer (`GET /core/accounts`); `[]` when there are none. */
  listAccounts(customerId: string, options: CallOptions = {}): Promise<AccountRecord[]> {
    return this.#call<AccountRecord[]>(
      'GET',
      `core/accounts?${new URLSearchParams({ customerId }).toString()}`,
      undefined,
      options,
    );
  }

  /** What coregate holds about a registered customer (`GET /core/sessions`); 404 when unknown. */
  getCustomer(customerId: string, options: CallOptions = {}): Promise<CustomerStatus> {
    return this.#call<CustomerStatus>(
      'GET',
      `core/sessions?${new URLSearchParams({ customerId }).toString()}`,
      undefined,
      options,
    );
  }

  /** Forgets a registered customer and ends its core session (`DELETE /core/sessions`); 404 when unknown. */
  deregisterCustomer(customerId: string, options: CallOptions = {}): Promise<Deregistration> {
    return this.#call<Deregistration>(
      'DELETE',
      `core/sessions?${new URLSearchParams({ customerId }).toString()}`,
      undefined,
      options,
    );
  }

  async #call<T>(
    method: Method,
    path: string,
    body: unknown,
    options: CallOptions,
    limits: RetryLimits = this.#limits,
  ): Promise<T> {
    const url = endpoint(this.#baseUrl, path);
    const call = callSignal(options.timeoutMs ?? this.#timeoutMs, options.signal);
    try {
      let renewedToken = false;
      let nonceRetried = false;
      for (let retry = 0; ;) {
        const token = await this.#tokens.get(call.signal, call.failure);
        const scheme = this.#tokens.scheme;
        let response: FetchResponse;
        try {
          response = await this.#fetch(url, {
            method,
            headers: {
              authorization: `${scheme} ${token}`,
              ...(scheme === 'DPoP' && this.#dpop ? { dpop: this.#dpop.proof(method, url, this.#now(), token) } : {}),
              accept: 'application/json',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            signal: call.signal,
          });
        } catch (error) {
          if (call.signal.aborted) throw call.failure();
          const delay = retryDelay(0, method, undefined, retry, limits);
          if (delay === undefined) {
            throw new CoregateError({
              status: 0,
              name: 'NetworkError',
              className: 'network-error',
              message: `could not reach coregate: ${(error as Error).message}`,
            });
          }
          await pause(delay, call.signal, call.failure);
          retry++;
          continue;
        }
        // RFC 9449 §9: the gateway wants a nonce in the proof; once, with the one it sent.
        if (
          scheme === 'DPoP' &&
          this.#dpop &&
          !nonceRetried &&
          response.status === 401 &&
          /error="use_dpop_nonce"/.test(response.headers.get('www-authenticate') ?? '') &&
          this.#dpop.rememberNonce(url, response)
        ) {
          nonceRetried = true;
          await response.body?.cancel();
          continue;
        }
        if (isInvalidToken(response) && !renewedToken) {
          // Revoked, expired early, or signed with a retired key: one fresh token, once.
          renewedToken = true;
          await response.body?.cancel();
          this.#tokens.invalidate(token);
          continue;
        }
        const parsed = await readJson(response).catch((error: unknown) => {
          if (call.signal.aborted) throw call.failure();
          throw error;
        });
        if (response.ok) {
          if (parsed === undefined || !('data' in parsed)) {
            throw new CoregateError({
              status: response.status,
              name: 'GeneralError',
              className: 'general-error',
              message: 'coregate answered without the success envelope',
            });
          }
          return parsed['data'] as T;
        }
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        const delay = retryDelay(response.status, method, retryAfterMs, retry, limits);
        // A wait that would outlast the call's timeout ends it now, with the answer that asked for it.
        if (delay === undefined || delay >= call.remainingMs())
          throw envelopeError(response.status, parsed, retryAfterMs);
        await pause(delay, call.signal, call.failure);
        retry++;
      }
    } finally {
      call.dispose();
    }
  }
}
