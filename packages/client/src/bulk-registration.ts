/**
 * `registerCustomers`: many registrations, a bounded number at a time, for a platform
 * onboarding its existing customers. The source is pulled lazily (100,000 customers are
 * never held in memory), results come back as an async iterator in the order they
 * settle, and the pace follows what coregate asks for:
 *
 * - 429, and 503 with `Retry-After` (coregate's rate limit, the core's circuit breaker,
 *   a core that answered 429, a database or process that cannot serve now), mean the
 *   registration was refused before anything happened: the item is sent again, after
 *   `Retry-After`, and never fails. The whole batch waits that long (the limit is the
 *   client's or the institution's, not the item's) and halves how many registrations
 *   it keeps in flight; every answer that is not such a refusal adds back one
 *   registration in flight per full round (AIMD, as TCP's congestion control, RFC 5681 §3.1).
 * - Errors about the client rather than the customer — the token endpoint refusing the
 *   credentials, a token coregate refuses even after a fresh one, 403 — would fail
 *   every remaining item alike, and a locked-out address stays locked out while it keeps
 *   trying: the iterator throws instead.
 * - Every other answer is the item's own result (`ok: false` with the `CoregateError`),
 *   and the batch goes on.
 */
import { setMaxListeners } from 'node:events';
import { CoregateError } from './errors.js';
import type { Registration, RegisterCustomerInput, RegistrationBody } from './schema.js';
import type { AbortSignalLike } from './platform-types.js';

/** One registration: what `registerCustomer` takes, or the wire body of `POST /core/sessions` (a JSON Lines file's line). */
export type BulkRegistrationItem = RegisterCustomerInput | RegistrationBody;

/** Running counts, passed to `onProgress` after every settled item and every refusal waited out. */
export interface BulkRegistrationProgress {
  /** Items with a result (`succeeded + failed`). */
  readonly done: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Registrations sent and not answered yet. */
  readonly inFlight: number;
  /** Answers 429/503 that were waited out and sent again (not results). */
  readonly throttled: number;
  /** How many registrations are kept in flight now: `concurrency`, less after refusals. */
  readonly concurrency: number;
  /** While the batch waits for a `Retry-After`: until when (ms since the epoch). */
  readonly pausedUntil: number | undefined;
}

export interface RegisterCustomersOptions {
  /** Most registrations in flight at once; 16 unless set (1 to 256). */
  readonly concurrency?: number;
  /** Stops the batch: nothing new is sent, registrations in flight are abandoned, and the iterator throws the signal's reason. */
  readonly signal?: AbortSignalLike;
  /** Longest time one attempt may take; the client's `timeoutMs` unless set. Waits for `Retry-After` are not counted. */
  readonly timeoutMs?: number;
  /** Called with the running counts after every settled item and every refusal waited out. */
  readonly onProgress?: (progress: BulkRegistrationProgress) => void;
}

interface ResultBase {
  /** The item's position in the source, from 0. */
  readonly index: number;
  /** The item's `customerId` (`registration.customerId` of a wire body), when it has one. */
  readonly customerId: string | undefined;
  /** Requests sent for it: 1, plus one per refusal waited out. */
  readonly attempts: number;
}

/** One item's outcome: never its demographics or customer key as sent. */
export type BulkRegistrationResult =
  | (ResultBase & { readonly ok: true; readonly customerKey: string })
  | (ResultBase & { readonly ok: false; readonly error: CoregateError });

/** One request for one item, answered or thrown as it came: 429/503 are not waited out. */
export type RegisterOnce = (body: unknown, signal: AbortSignalLike) => Promise<Registration>;

const DEFAULT_CONCURRENCY = 16;
const MAX_CONCURRENCY = 256;

/** The wire body of `POST /core/sessions` for an item, and its customerId. */
export function registrationBody(item: BulkRegistrationItem): { body: unknown; customerId: string | undefined } {
  if (item !== null && typeof item === 'object' && 'registration' in item) {
    const customerId: unknown = (item.registration as { customerId?: unknown } | null)?.customerId;
    return { body: item, customerId: typeof customerId === 'string' ? customerId : undefined };
  }
  if (item !== null && typeof item === 'object') {
    const { customerId, ...subject } = item;
    return {
      body: { ...subject, registration: { customerId } },
      customerId: typeof customerId === 'string' ? customerId : undefined,
    };
  }
  // Not an object at all: coregate names what is wrong with it (400).
  return { body: item, customerId: undefined };
}

/** A refusal that asks the batch to slow down: nothing was done, send it again later. */
function throttleWaitMs(error: CoregateError): number | undefined {
  if (error.status === 429) return (error.retryAfterSeconds ?? 1) * 1000;
  if (error.status === 503 && error.retryAfterSeconds !== undefined) return error.retryAfterSeconds * 1000;
  return undefined;
}

/** An error about the client (credentials, token, permissions), the same for every item. */
function aboutTheClient(error: CoregateError): boolean {
  if (error.error !== undefined) return true;
  const reason = error.data['reason'];
  if (error.status === 401)
    return reason === 'missing_token' || reason === 'invalid_token' || reason === 'invalid_dpop_proof';
  return error.status === 403;
}

interface Pending {
  readonly index: number;
  readonly body: unknown;
  readonly customerId: string | undefined;
  attempts: number;
}

type Waiter = {
  resolve: (next: IteratorResult<BulkRegistrationResult, undefined>) => void;
  reject: (error: unknown) => void;
};

export class BulkRegistration implements AsyncIterableIterator<BulkRegistrationResult, undefined> {
  readonly #registerOnce: RegisterOnce;
  readonly #source: Iterator<BulkRegistrationItem> | AsyncIterator<BulkRegistrationItem>;
  readonly #maxConcurrency: number;
  readonly #onProgress: ((progress: BulkRegistrationProgress) => void) | undefined;
  readonly #outer: AbortSignalLike | undefined;
  readonly #controller = new AbortController();
  /** Items to send: refused ones first (unshifted), then those pulled from the source. */
  readonly #ready: Pending[] = [];
  readonly #results: BulkRegistrationResult[] = [];
  readonly #waiters: Waiter[] = [];
  #started = false;
  #pulling = false;
  #sourceDone = false;
  /** Set once the batch is over: finished, stopped by the consumer, cancelled or failed. */
  #ended = false;
  #failure: { error: unknown } | undefined;
  #nextIndex = 0;
  #inFlight = 0;
  #limit: number;
  #lastDecrease = 0;
  #pausedUntil = 0;
  #wake: ReturnType<typeof setTimeout> | undefined;
  #succeeded = 0;
  #failed = 0;
  #throttled = 0;

  constructor(
    source: Iterable<BulkRegistrationItem> | AsyncIterable<BulkRegistrationItem>,
    options: RegisterCustomersOptions,
    registerOnce: RegisterOnce,
  ) {
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new RangeError(`concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`);
    }
    const asynchronous = (source as AsyncIterable<BulkRegistrationItem>)[Symbol.asyncIterator];
    const synchronous = (source as Iterable<BulkRegistrationItem>)[Symbol.iterator];
    if (typeof asynchronous !== 'function' && typeof synchronous !== 'function')
      throw new TypeError('registerCustomers takes an iterable or an async iterable');
    this.#source = typeof asynchronous === 'function' ? asynchronous.call(source) : synchronous.call(source);
    this.#maxConcurrency = concurrency;
    this.#limit = concurrency;
    // Each registration in flight listens on the batch's signal.
    setMaxListeners(concurrency + 1, this.#controller.signal);
    this.#onProgress = options.onProgress;
    this.#registerOnce = registerOnce;
    this.#outer = options.signal;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<BulkRegistrationResult, undefined>> {
    if (!this.#started) this.#start();
    const result = this.#results.shift();
    if (result) {
      this.#fill();
      return Promise.resolve({ value: result, done: false });
    }
    if (this.#failure) {
      const { error } = this.#failure;
      this.#failure = undefined;
      return Promise.reject(error);
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** The consumer stopped (`break`): nothing more is sent, registrations in flight are abandoned. */
  return(): Promise<IteratorResult<BulkRegistrationResult, undefined>> {
    this.#end(undefined);
    this.#failure = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  #start(): void {
    this.#started = true;
    if (this.#outer?.aborted) {
      this.#end({ error: this.#outer.reason });
      return;
    }
    this.#outer?.addEventListener('abort', this.#onAbort, { once: true });
    this.#fill();
  }

  readonly #onAbort = () => this.#end({ error: this.#outer?.reason });

  /** Starts what may start now: refused items first, then the source's next ones, one pull at a time. */
  #fill(): void {
    while (!this.#ended) {
      const now = Date.now();
      if (now < this.#pausedUntil) {
        this.#wake ??= setTimeout(() => {
          this.#wake = undefined;
          this.#fill();
        }, this.#pausedUntil - now);
        return;
      }
      // Results nobody has read yet count against the limit: a slow consumer slows the batch.
      if (
        this.#inFlight >= Math.floor(this.#limit) ||
        this.#inFlight + this.#results.length >= this.#maxConcurrency * 2
      )
        return;
      const item = this.#ready.shift();
      if (item) {
        this.#send(item);
        continue;
      }
      if (this.#sourceDone) {
        if (this.#inFlight === 0) this.#end(undefined);
        return;
      }
      if (!this.#pulling) void this.#pull();
      return;
    }
  }

  async #pull(): Promise<void> {
    this.#pulling = true;
    let next: IteratorResult<BulkRegistrationItem>;
    try {
      next = await this.#source.next();
    } catch (error) {
      this.#end({ error });
      return;
    } finally {
      this.#pulling = false;
    }
    if (this.#ended) return;
    if (next.done) this.#sourceDone = true;
    else this.#ready.push({ index: this.#nextIndex++, ...registrationBody(next.value), attempts: 0 });
    this.#fill();
  }

  #send(item: Pending): void {
    item.attempts += 1;
    this.#inFlight += 1;
    const sentAt = Date.now();
    let attempt: Promise<Registration>;
    try {
      attempt = this.#registerOnce(item.body, this.#controller.signal);
    } catch (error) {
      attempt = Promise.reject(error);
    }
    attempt.then(
      (registration) => {
        this.#inFlight -= 1;
        this.#answered();
        this.#settle({
          index: item.index,
          customerId: item.customerId,
          attempts: item.attempts,
          ok: true,
          customerKey: registration.customerKey,
        });
      },
      (error: unknown) => {
        this.#inFlight -= 1;
        this.#refused(item, error, sentAt);
      },
    );
  }

  #refused(item: Pending, caught: unknown, sentAt: number): void {
    if (this.#ended) return;
    const error =
      caught instanceof CoregateError
        ? caught
        : new CoregateError({
            status: 0,
            name: 'ClientError',
            className: 'client-error',
            message: `the registration could not be sent: ${(caught as Error)?.message ?? String(caught)}`,
            cause: caught,
          });
    const wait = throttleWaitMs(error);
    if (wait !== undefined) {
      this.#throttled += 1;
      // One halving per refusal round: answers to requests sent before the last halving were already counted in it.
      if (sentAt >= this.#lastDecrease) {
        this.#limit = Math.max(1, this.#limit / 2);
        this.#lastDecrease = Date.now();
      }
      this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + wait);
      this.#ready.unshift(item);
      this.#progress();
      this.#fill();
      return;
    }
    if (aboutTheClient(error)) {
      this.#end({ error });
      return;
    }
    this.#answered();
    this.#settle({ index: item.index, customerId: item.customerId, attempts: item.attempts, ok: false, error });
  }

  /** coregate took a request and answered it: one more in flight per full round of answers. */
  #answered(): void {
    this.#limit = Math.min(this.#maxConcurrency, this.#limit + 1 / this.#limit);
  }

  #settle(result: BulkRegistrationResult): void {
    if (this.#ended) return;
    if (result.ok) this.#succeeded += 1;
    else this.#failed += 1;
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve({ value: result, done: false });
    else this.#results.push(result);
    this.#progress();
    this.#fill();
  }

  #progress(): void {
    this.#onProgress?.({
      done: this.#succeeded + this.#failed,
      succeeded: this.#succeeded,
      failed: this.#failed,
      inFlight: this.#inFlight,
      throttled: this.#throttled,
      concurrency: Math.floor(this.#limit),
      pausedUntil: this.#pausedUntil > Date.now() ? this.#pausedUntil : undefined,
    });
  }

  /** Ends the batch: done (`failure` undefined), or with an error for the consumer after the results it has not read. */
  #end(failure: { error: unknown } | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#outer?.removeEventListener('abort', this.#onAbort);
    clearTimeout(this.#wake);
    // Registrations still in flight are abandoned: whether coregate completed them is unknown (a repeat is harmless).
    if (this.#inFlight > 0)
      this.#controller.abort(failure?.error ?? new DOMException('the bulk registration was stopped', 'AbortError'));
    if (!this.#sourceDone) {
      // The source is left half-read: let it close what it holds (a file, a cursor).
      void Promise.resolve()
        .then(() => this.#source.return?.())
        .catch(() => undefined);
    }
    this.#failure = failure;
    for (const waiter of this.#waiters.splice(0)) {
      if (this.#failure) {
        waiter.reject(this.#failure.error);
        this.#failure = undefined;
      } else waiter.resolve({ value: undefined, done: true });
    }
  }
}
