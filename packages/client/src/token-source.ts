/**
 * Access tokens for the client credentials grant: one token reused until shortly
 * before it expires, and one pending token request shared by every caller that
 * needs a token meanwhile (the single-flight of panva/jose's `jwks/remote.ts`).
 * Holds the client secret only inside the precomputed Basic header, in a private
 * field, so it never shows in `util.inspect`, `JSON.stringify` or an error. With a
 * private key instead, each request carries a fresh `private_key_jwt` assertion; with
 * DPoP, each carries a fresh proof (and is repeated once when the server asks for a nonce).
 */
import { CoregateError, namesForStatus } from './errors.js';
import { callSignal, pause, untilAborted } from './call-signal.js';
import { readJson } from './read-json.js';
import { parseRetryAfter, retryDelay, type RetryLimits } from './retry-policy.js';
import type { ClientAssertionSigner, DpopSigner } from './proofs.js';
import type { AbortSignalLike, FetchFunction, FetchResponse } from './platform-types.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Renew this long before `expires_in` runs out: 10 % of the lifetime, at most 30 s. */
function renewalMargin(expiresInSeconds: number): number {
  return Math.min(30_000, expiresInSeconds * 100);
}

/** RFC 6749 §2.3.1: id and secret form-urlencoded before base64. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

export interface TokenSourceOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  /** One of the two: the secret (client_secret_basic) or the signer of assertions (private_key_jwt). */
  readonly clientSecret: string | undefined;
  readonly assertions: ClientAssertionSigner | undefined;
  /** Ask for DPoP-bound tokens with this key. */
  readonly dpop: DpopSigner | undefined;
  readonly scope: string | undefined;
  readonly timeoutMs: number;
  readonly limits: RetryLimits;
  readonly fetch: FetchFunction;
  readonly now: () => number;
}

interface CachedToken {
  readonly value: string;
  readonly renewAt: number;
}

export class TokenSource {
  readonly #authorization: string | undefined;
  readonly #options: Omit<TokenSourceOptions, 'clientSecret'>;
  /** How the latest token is presented: `DPoP` when the server bound it to our key. */
  #scheme: 'Bearer' | 'DPoP' = 'Bearer';
  #current: CachedToken | undefined;
  #pending: Promise<string> | undefined;

  constructor(options: TokenSourceOptions) {
    const { clientSecret, ...rest } = options;
    this.#authorization = clientSecret === undefined ? undefined : basicAuthorization(options.clientId, clientSecret);
    this.#options = rest;
  }

  /** A valid token: the cached one, the pending request's, or a new request's. */
  get(signal: AbortSignalLike, failure: () => unknown): Promise<string> {
    const current = this.#current;
    if (current && this.#options.now() < current.renewAt) return Promise.resolve(current.value);
    if (signal.aborted) return Promise.reject(failure());
    if (this.#pending === undefined) {
      // The shared request runs on its own timeout: one caller giving up must not fail the others.
      const pending = this.#request().finally(() => (this.#pending = undefined));
      // Every caller may have given up by the time it fails: that is no unhandled rejection.
      pending.catch(() => undefined);
      this.#pending = pending;
    }
    return untilAborted(this.#pending, signal, failure);
  }

  /** The scheme tokens are sent with: `DPoP` for tokens bound to the DPoP key (RFC 9449 §7.1). */
  get scheme(): 'Bearer' | 'DPoP' {
    return this.#scheme;
  }

  /** Forgets `token` after the server refused it; a newer token stays. */
  invalidate(token: string): void {
    if (this.#current?.value === token) this.#current = undefined;
  }

  async #request(): Promise<string> {
    const { tokenUrl, scope, timeoutMs, limits, now } = this.#options;
    const call = callSignal(timeoutMs, undefined);
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined) form.set('scope', scope);
    const { assertions, dpop } = this.#options;
    let nonceRetried = false;
    try {
      for (let retry = 0; ; retry++) {
        const requestedAt = now();
        // Every attempt signs anew: an assertion's and a proof's jti are single-use.
        if (assertions) {
          form.set('client_assertion_type', JWT_BEARER);
          form.set('client_assertion', assertions.assertion(tokenUrl, requestedAt));
        }
        let response: FetchResponse;
        try {
          response = await this.#options.fetch(tokenUrl, {
            method: 'POST',
            headers: {
              ...(this.#authorization ? { authorization: this.#authorization } : {}),
              ...(dpop ? { dpop: dpop.proof('POST', tokenUrl, requestedAt) } : {}),
              'content-type': 'application/x-www-form-urlencoded',
              accept: 'application/json',
            },
            body: form.toString(),
            signal: call.signal,
          });
        } catch (error) {
          if (call.signal.aborted) throw call.failure();
          throw new CoregateError({
            status: 0,
            name: 'NetworkError',
            className: 'network-error',
            message: `could not reach the token endpoint: ${(error as Error).message}`,
          });
        }
        const body = await readJson(response);
        if (response.ok) {
          const accessToken = body?.['access_token'];
          const expiresIn = body?.['expires_in'];
          if (typeof accessToken !== 'string' || typeof expiresIn !== 'number') {
            throw new CoregateError({
              status: response.status,
              name: 'GeneralError',
              className: 'general-error',
              message: 'the token endpoint answered without access_token and expires_in',
            });
          }
          this.#current = { value: accessToken, renewAt: requestedAt + expiresIn * 1000 - renewalMargin(expiresIn) };
          this.#scheme = dpop && body?.['token_type'] === 'DPoP' ? 'DPoP' : 'Bearer';
          return accessToken;
        }
        // RFC 9449 §8: the server wants a nonce in the proof; once, with the one it sent.
        if (dpop && !nonceRetried && body?.['error'] === 'use_dpop_nonce' && dpop.rememberNonce(tokenUrl, response)) {
          nonceRetried = true;
          retry--;
          continue;
        }
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        const delay = retryDelay(response.status, 'POST', retryAfterMs, retry, limits);
        if (delay === undefined || delay >= call.remainingMs()) throw tokenError(response.status, body, retryAfterMs);
        await pause(delay, call.signal, call.failure);
      }
    } finally {
      call.dispose();
    }
  }
}

/** `400 {"error": "invalid_client"}` → a CoregateError with `error` set (CONTRACT §10). */
function tokenError(
  status: number,
  body: Record<string, unknown> | undefined,
  retryAfterMs: number | undefined,
): CoregateError {
  const [name, className] = namesForStatus(status);
  const code = typeof body?.['error'] === 'string' ? body['error'] : undefined;
  const description = typeof body?.['error_description'] === 'string' ? body['error_description'] : undefined;
  const message = `token request refused (${status}${code ? ` ${code}` : ''})${description ? `: ${description}` : ''}`;
  return new CoregateError({
    status,
    name,
    className,
    message,
    ...(code === undefined ? {} : { error: code }),
    ...(description === undefined ? {} : { errorDescription: description }),
    ...(retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
  });
}
