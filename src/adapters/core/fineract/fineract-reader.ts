/**
 * Reading Fineract's answers over the shared core HTTP client: a 200's JSON read strictly
 * (`parseAnswer`: 64-bit ids kept, a key given twice refused), every other status turned into
 * the failure it means (`failureOf`), and a refusal that is the bank's configuration to fix
 * (credentials, tenant, a read-only node) logged in words an operator acts on — naming the
 * call's template, never an SSN, an account number, a birth date or an id.
 */
import { Semaphore } from 'async-mutex';
import type { Logger } from 'pino';
import { CoreProtocolError, type CoreCallContext } from '../../../ports/core-connector.js';
import type { Answer, CoreHttpClient } from '../core-http-client.js';
import { MalformedAnswer, parseAnswer } from './answer-reader.js';
import {
  CREDENTIALS_REFUSED,
  failureOf,
  FINERACT_REFUSALS,
  isTenantRefusal,
  type FineractRequest,
} from './fineract-http.js';

/**
 * Reads an answer with `read`; a field that is not what it must be becomes a protocol error
 * naming the call and the field's path, never a value. A {@link ForeignAccount} passes
 * through: the accounts read counts them.
 */
export function readAnswer<T>(request: FineractRequest, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof MalformedAnswer)
      throw new CoreProtocolError(`invalid Fineract answer to ${request.template}: ${error.message}`, true);
    throw error;
  }
}

/** Fineract calls one coregate request has in flight at most: a client with many accounts queues, it does not flood. */
const MAX_PARALLEL_CALLS = 8;

/** One request's share of Fineract: its calls pass this gate, {@link MAX_PARALLEL_CALLS} at a time. */
export function callGate(): Semaphore {
  return new Semaphore(MAX_PARALLEL_CALLS);
}

export class FineractReader {
  constructor(
    readonly http: CoreHttpClient,
    private readonly where: { readonly institution: string; readonly tenant: string; readonly logger?: Logger },
  ) {}

  send(request: FineractRequest, context: CoreCallContext, gate?: Semaphore): Promise<Answer> {
    return gate ? gate.runExclusive(() => this.http.send(request, context)) : this.http.send(request, context);
  }

  /** A 200 answer's JSON; any other status is the failure every call shares. */
  ok(answer: Answer, request: FineractRequest, context: CoreCallContext): unknown {
    if (answer.status !== 200) {
      this.logRefusal(answer, request, context);
      throw failureOf(answer, request, this.where.tenant);
    }
    return readAnswer(request, () => parseAnswer(answer.text));
  }

  /** GET a resource whose absence is an answer: 404 is `undefined`. */
  async optional(request: FineractRequest, context: CoreCallContext, gate?: Semaphore): Promise<unknown> {
    const answer = await this.send(request, context, gate);
    if (answer.status === 404) return undefined;
    return this.ok(answer, request, context);
  }

  /** GET a resource that must be there. */
  async required(request: FineractRequest, context: CoreCallContext, gate?: Semaphore): Promise<unknown> {
    return this.ok(await this.send(request, context, gate), request, context);
  }

  /** The refusals that are the bank's configuration to fix, in the log in words. */
  logRefusal(answer: Answer, request: FineractRequest, context: CoreCallContext): void {
    const message =
      answer.status === 401 || answer.status === 403
        ? `${CREDENTIALS_REFUSED}: check the institution's Fineract user, password, tenant and the user's read permissions`
        : isTenantRefusal(answer)
          ? FINERACT_REFUSALS.tenant(this.where.tenant)
          : answer.status === 405 && request.method === 'POST'
            ? FINERACT_REFUSALS.readOnly
            : undefined;
    if (message)
      this.where.logger?.error(
        // The request's id, like every line a request causes; `institution` once, from here.
        {
          reqId: context.requestId,
          institution: this.where.institution,
          status: answer.status,
          call: request.template,
        },
        message,
      );
  }
}
