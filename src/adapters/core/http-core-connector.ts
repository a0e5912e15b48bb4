/**
 * A {@link CoreConnector} speaking the reference core protocol
 * (docs/core-protocol.md) over HTTP with undici: kept-alive connections, a
 * deadline on every call, strict reading of every answer, and failures mapped to
 * the port's typed errors. Error messages name what went wrong, never the
 * delegate reference ID, the demographics or the API key.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Dispatcher } from 'undici';
import type { AccountRecord } from '../../domain/account.js';
import {
  CoreProtocolError,
  CoreUnavailable,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
} from '../../ports/core-connector.js';
import { describeProblems, jsonType, readAccountRecord, type Problem } from './account-record.js';
import { CoreHttpClient, type Answer } from './core-http-client.js';
import { isPlainObject } from '../../domain/json.js';
import {
  CUSTOMER_KEY_PATTERN,
  errorForAnswer,
  HEADER_SAFE_PATTERN,
  PROTOCOL_HEADERS,
  PROTOCOL_PATHS,
  retrySafe,
  SessionBodySchema,
  sessionEndedAnyway,
  type CoreOperation,
  type SessionBody,
  type StartSessionBody,
} from './protocol.js';
import type { RegistrationSubject } from '../../domain/registration.js';

export interface HttpCoreConnectorOptions {
  /** Base URL of the core (or of the bank's adapter), e.g. `https://core.bank.example/coregate`; the protocol paths go below it. */
  readonly baseUrl: string;
  /** The institution's API key, sent as `X-Api-Key` (COREGATE_CORE_API_KEY). */
  readonly apiKey?: string | undefined;
  /** Deadline of each call, connection included; 5000 ms by default. */
  readonly timeoutMs?: number;
  /** Size of the keep-alive pool; 32 by default. Ignored with `dispatcher`. */
  readonly connections?: number;
  /** An undici dispatcher to use instead of an own pool (for example an Agent with TLS options, or a MockAgent). Not closed by {@link HttpCoreConnector.close}. */
  readonly dispatcher?: Dispatcher;
  /** Largest answer read; 4 MiB by default. */
  readonly maxResponseBytes?: number;
  /** TLS to an `https:` core: the CA to trust instead of the system's, and a client certificate and key for mutual TLS (PEM). Ignored with `dispatcher`. */
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
}

/** Anything that may go into a header: visible ASCII. */
const HEADER_SAFE = new RegExp(HEADER_SAFE_PATTERN);
/** Customer keys as the protocol defines them (docs/core-protocol.md#2-post-v1sessions--start-a-session). */
const CUSTOMER_KEY = new RegExp(CUSTOMER_KEY_PATTERN);
/** The session answer's shape, compiled once; a refused answer is explained field by field. */
const sessionAnswer = TypeCompiler.Compile(SessionBodySchema);
const ISO_WITH_ZONE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO 8601 date-time with a zone (`Z` or `±hh:mm`); more than millisecond precision is cut. */
function parseZonedDateTime(value: string): Date | undefined {
  const match = ISO_WITH_ZONE.exec(value);
  if (!match) return undefined;
  const date = new Date(`${match[1]}${match[2] ? match[2].slice(0, 4) : ''}${match[3]}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export class HttpCoreConnector implements CoreConnector {
  private readonly http: CoreHttpClient;

  constructor(options: HttpCoreConnectorOptions) {
    if (options.apiKey !== undefined && !HEADER_SAFE.test(options.apiKey))
      throw new TypeError('the core API key must be visible ASCII characters');
    const apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.http = new CoreHttpClient({
      baseUrl: options.baseUrl,
      baseUrlName: 'the core base URL',
      timeoutMs: options.timeoutMs ?? 5000,
      connections: options.connections ?? 32,
      maxResponseBytes: options.maxResponseBytes ?? 4 * 1024 * 1024,
      identityHeaders: apiKey === undefined ? {} : { [PROTOCOL_HEADERS.apiKey]: apiKey },
      tls: options.tls,
      dispatcher: options.dispatcher,
    });
  }

  async startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    const body: StartSessionBody =
      subject.kind === 'customerKey'
        ? { customerKey: subject.customerKey }
        : {
            demographics: {
              socialSecurityNumber: subject.socialSecurityNumber,
              accountNumber: subject.accountNumber,
              birthDay: subject.birthDay,
            },
          };
    const answer = await this.call('startSession', 'POST', PROTOCOL_PATHS.sessions, context, {}, JSON.stringify(body));
    if (answer.status !== 201 && answer.status !== 200) throw this.failure('startSession', answer);
    const json = this.json('startSession', answer);
    const expiresAt = sessionAnswer.Check(json) ? parseZonedDateTime(json.expiresAt) : undefined;
    if (!expiresAt) throw this.invalidSessionAnswer(json);
    const session = json as SessionBody;
    if (subject.kind === 'customerKey' && session.customerKey !== subject.customerKey) {
      // Never hand out a session for someone other than who was asked for.
      throw new CoreProtocolError(
        'the session answer names a different customerKey than requested',
        retrySafe('startSession', true),
      );
    }
    return { customerKey: session.customerKey, delegateReferenceId: session.delegateReferenceId, expiresAt };
  }

  /** Why a session answer was refused, naming each field and never its value (a delegate reference ID is a secret). */
  private invalidSessionAnswer(json: unknown): CoreProtocolError {
    const problems: Problem[] = [];
    if (!isPlainObject(json))
      return new CoreProtocolError(
        `the session answer is ${jsonType(json)}, not an object`,
        retrySafe('startSession', true),
      );
    const { customerKey, delegateReferenceId, expiresAt } = json;
    // The platform may send this key back in Form B: hold it to the same format (1-128 visible ASCII).
    if (typeof customerKey !== 'string' || !CUSTOMER_KEY.test(customerKey)) {
      problems.push({
        path: 'customerKey',
        message: `expected 1 to 128 visible ASCII characters, got ${jsonType(customerKey)}`,
      });
    }
    if (typeof delegateReferenceId !== 'string' || !HEADER_SAFE.test(delegateReferenceId)) {
      problems.push({ path: 'delegateReferenceId', message: 'expected 1 to 1024 visible ASCII characters' });
    }
    const expires = typeof expiresAt === 'string' ? parseZonedDateTime(expiresAt) : undefined;
    if (!expires)
      problems.push({
        path: 'expiresAt',
        message: 'expected an ISO 8601 date-time with a zone, e.g. 2026-03-01T12:15:00Z',
      });
    // The compiled check and this explanation agree; should they ever not, the answer is still refused.
    if (problems.length === 0)
      problems.push({ path: '(answer)', message: 'does not match the session answer of the protocol' });
    return new CoreProtocolError(
      `invalid session answer: ${describeProblems(problems)}`,
      retrySafe('startSession', true),
    );
  }

  async listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    if (!HEADER_SAFE.test(delegateReferenceId))
      throw new CoreProtocolError('the delegate reference ID cannot be sent in a header', true);
    const answer = await this.call('listAccounts', 'GET', PROTOCOL_PATHS.accounts, context, {
      [PROTOCOL_HEADERS.delegateReferenceId]: delegateReferenceId,
    });
    if (answer.status !== 200) throw this.failure('listAccounts', answer);
    const json = this.json('listAccounts', answer);
    if (!isPlainObject(json) || !Array.isArray(json.accounts)) {
      throw new CoreProtocolError(
        `invalid accounts answer: expected {"accounts": [...]}, got ${isPlainObject(json) ? `accounts as ${jsonType(json.accounts)}` : jsonType(json)}`,
        true,
      );
    }
    const problems: Problem[] = [];
    const records: AccountRecord[] = [];
    json.accounts.forEach((item: unknown, index: number) => {
      const record = readAccountRecord(item, `accounts[${index}]`, problems, 'drop');
      if (record) records.push(record);
    });
    if (problems.length > 0)
      throw new CoreProtocolError(`invalid accounts answer: ${describeProblems(problems)}`, true);
    return records;
  }

  async endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    if (!HEADER_SAFE.test(delegateReferenceId))
      throw new CoreProtocolError('the delegate reference ID cannot be sent in a header', true);
    const answer = await this.call('endSession', 'DELETE', PROTOCOL_PATHS.sessions, context, {
      [PROTOCOL_HEADERS.delegateReferenceId]: delegateReferenceId,
    });
    if ((answer.status >= 200 && answer.status < 300) || sessionEndedAnyway(answer.status)) return;
    throw this.failure('endSession', answer);
  }

  /**
   * Readiness: `GET /v1/health` with a short deadline. Any answer below 500 means
   * the core is reachable (an adapter without the endpoint answers 404), except a
   * refused API key, which would fail every real call too.
   */
  async ping(context: CoreCallContext): Promise<void> {
    const answer = await this.http.ping(PROTOCOL_PATHS.health, context);
    if (answer.status >= 500) throw new CoreUnavailable(`the core answered ${answer.status}`, true);
    if (answer.status === 403 && /"api_key_invalid"/.test(answer.text)) {
      throw new CoreProtocolError(
        "the core refused coregate's API key (403 api_key_invalid); check COREGATE_CORE_API_KEY",
        true,
      );
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(
    operation: CoreOperation,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    context: CoreCallContext,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer> {
    return this.http.send({ method, path, headers, body }, context, {
      retrySafe: (reachedCore) => retrySafe(operation, reachedCore),
    });
  }

  private json(operation: CoreOperation, answer: Answer): unknown {
    return this.http.json(answer, operation, retrySafe(operation, true));
  }

  private failure(operation: CoreOperation, answer: Answer): Error {
    let code: string | undefined;
    try {
      const parsed: unknown = JSON.parse(answer.text);
      if (isPlainObject(parsed) && typeof parsed.error === 'string') code = parsed.error;
    } catch {
      // An error page that is not JSON: the status alone decides.
    }
    return errorForAnswer(operation, answer.status, code);
  }
}
