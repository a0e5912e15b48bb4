/**
 * A {@link CoreConnector} for Apache Fineract's back-office REST API (docs/cores/fineract.md),
 * spoken by coregate itself with a read-only service user. Registration finds the customer
 * among Fineract's clients; the "session" is coregate's own sealed token naming the client
 * (`session-token.ts`); accounts are read from Fineract and mapped to account records
 * (`account-mapping.ts`). Only the calls listed in docs/cores/fineract.md#calls are made.
 * Error messages and log lines name calls by their path template, never a social security
 * number, an account number, a birth date or a token.
 */
import type { Logger } from 'pino';
import type { AccountRecord } from '../../../domain/account.js';
import {
  FINERACT_CUSTOMER_KEY_MODES,
  type CoreCredentials,
  type FineractCustomerKeyMode,
  type FineractSettings,
} from '../../../domain/institution.js';
import type { RegistrationSubject } from '../../../domain/registration.js';
import type { Clock } from '../../../ports/clock.js';
import type { SecretSealer } from '../../../ports/secret-sealer.js';
import {
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
} from '../../../ports/core-connector.js';
import { describeProblems, readAccountRecord, type Problem } from '../account-record.js';
import type { Answer, CoreHttpClient } from '../core-http-client.js';
import { CUSTOMER_KEY_PATTERN } from '../protocol.js';
import {
  ForeignAccount,
  loanRecord,
  readClientAccounts,
  readTermDeposit,
  savingsRecord,
  type ListedAccount,
  type MappingContext,
} from './account-mapping.js';
import {
  array,
  dateField,
  flag,
  idField,
  listField,
  FINERACT_ID,
  MalformedAnswer,
  object,
  optionalString,
  absent,
  stringField,
} from './answer-reader.js';
import { CREDENTIALS_REFUSED, failureOf, fineractHttpClient, type FineractRequest } from './fineract-http.js';
import { openSession, sealSession } from './session-token.js';

export interface FineractCoreConnectorOptions extends FineractSettings {
  /** Fineract's context root, e.g. `https://fineract.bank.example/fineract-provider`. */
  readonly baseUrl: string;
  readonly credentials: CoreCredentials;
  /** The institution the connector serves: bound into every delegate reference ID it makes. */
  readonly institution: string;
  /** Deadline of each call, connection included. */
  readonly timeoutMs: number;
  /** TLS to an `https:` Fineract: a CA to trust instead of the system's (PEM). */
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
  /** coregate's clock: session expiry and "this calendar year". */
  readonly clock: Clock;
  /** Seals the delegate reference IDs the connector makes (AES-256-GCM with the encryption key). */
  readonly sealer: SecretSealer;
  readonly logger?: Logger;
  /** Size of the keep-alive pool to Fineract; 16 by default. */
  readonly connections?: number;
}

/** Clients per search page: more people than that sharing one number's digits is not a match anyway. */
const SEARCH_PAGE_SIZE = 50;
const CUSTOMER_KEY = new RegExp(CUSTOMER_KEY_PATTERN);

const calls = {
  search: (body: string): FineractRequest => ({
    method: 'POST',
    path: '/api/v2/clients/search',
    template: 'POST /v2/clients/search',
    body,
  }),
  identifiers: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/${id}/identifiers`,
    template: 'GET /v1/clients/{id}/identifiers',
  }),
  client: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/${id}`,
    template: 'GET /v1/clients/{id}',
  }),
  clientByExternalId: (externalId: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/external-id/${encodeURIComponent(externalId)}`,
    template: 'GET /v1/clients/external-id/{externalId}',
  }),
  accounts: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/${id}/accounts`,
    template: 'GET /v1/clients/{id}/accounts',
  }),
  savings: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/savingsaccounts/${id}?associations=transactions`,
    template: 'GET /v1/savingsaccounts/{id}',
  }),
  fixedDeposit: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/fixeddepositaccounts/${id}?associations=transactions`,
    template: 'GET /v1/fixeddepositaccounts/{id}',
  }),
  recurringDeposit: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/recurringdepositaccounts/${id}?associations=transactions`,
    template: 'GET /v1/recurringdepositaccounts/{id}',
  }),
  loan: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/loans/${id}?associations=repaymentSchedule,transactions`,
    template: 'GET /v1/loans/{id}',
  }),
  health: (): FineractRequest => ({ method: 'GET', path: '/actuator/health', template: 'GET /actuator/health' }),
} as const;

/** A client as `GET /v1/clients/{id}` answers it, reduced to what registration needs. */
interface ClientFacts {
  readonly id: string;
  readonly active: boolean;
  readonly externalId: string | undefined;
  /** `YYYY-MM-DD`, or `undefined` when Fineract has none. */
  readonly birthDay: string | undefined;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** The SSN's 9 digits, and the `123-45-6789` form. */
function ssnSearchTexts(digits: string): string[] {
  return [digits, `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`];
}

/**
 * Reads an answer with `read`; a field that is not what it must be becomes a protocol
 * error naming the call and the field's path.
 */
function readAnswer<T>(request: FineractRequest, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof MalformedAnswer)
      throw new CoreProtocolError(`invalid Fineract answer to ${request.template}: ${error.message}`, true);
    // Nothing of another client's account is passed on; the message names the field, never an id.
    if (error instanceof ForeignAccount)
      throw new CoreProtocolError(`Fineract answered ${request.template} for another client (${error.message})`, true);
    throw error;
  }
}

export class FineractCoreConnector implements CoreConnector {
  private readonly http: CoreHttpClient;
  private readonly binding: { readonly institution: string; readonly tenant: string };

  constructor(readonly options: FineractCoreConnectorOptions) {
    const modes: readonly FineractCustomerKeyMode[] = FINERACT_CUSTOMER_KEY_MODES;
    if (!modes.includes(options.customerKey))
      throw new TypeError(`the Fineract customer key mode must be one of ${modes.join(', ')}`);
    if (!Number.isSafeInteger(options.sessionTtlSeconds) || options.sessionTtlSeconds < 1)
      throw new TypeError('the Fineract session TTL must be a whole number of seconds, at least 1');
    this.http = fineractHttpClient({
      baseUrl: options.baseUrl,
      credentials: options.credentials,
      tenant: options.tenant,
      timeoutMs: options.timeoutMs,
      tls: options.tls,
      connections: options.connections,
    });
    this.binding = { institution: options.institution, tenant: options.tenant };
  }

  async startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    const client =
      subject.kind === 'demographics'
        ? await this.clientByDemographics(subject, context)
        : await this.clientByKey(subject.customerKey, context);
    const customerKey = this.options.customerKey === 'id' ? client.id : client.externalId;
    // A client without an external id cannot be named in external-id mode.
    if (customerKey === undefined || !CUSTOMER_KEY.test(customerKey)) throw new CustomerNotRecognised();
    const expiresAt = new Date(this.options.clock.now().getTime() + this.options.sessionTtlSeconds * 1000);
    const delegateReferenceId = sealSession(this.options.sealer, this.binding, {
      clientId: client.id,
      customerKey,
      expiresAt,
    });
    return { customerKey, delegateReferenceId, expiresAt };
  }

  async listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    const session = openSession(this.options.sealer, this.binding, delegateReferenceId, this.options.clock.now());
    if (!session) throw new SessionRejected();
    const request = calls.accounts(session.clientId);
    const answer = await this.http.send(request, context);
    // The client is gone: the session is over, and renewal will find out whether the customer is too.
    if (answer.status === 404) throw new SessionRejected();
    const listed = readAnswer(request, () => readClientAccounts(this.ok(answer, request)));
    const mapping: MappingContext = {
      clientId: session.clientId,
      customerKey: session.customerKey,
      tenant: this.options.tenant,
      now: this.options.clock.now(),
    };
    const records = await Promise.all([
      ...listed.savings.filter((account) => account.active).map((account) => this.savings(account, mapping, context)),
      ...listed.loans.filter((account) => account.active).map((account) => this.loan(account, mapping, context)),
    ]);
    const problems: Problem[] = [];
    const valid: AccountRecord[] = [];
    records.forEach((record, index) => {
      const checked = readAccountRecord(record, `accounts[${index}]`, problems, 'reject');
      if (checked) valid.push(checked);
    });
    if (problems.length > 0)
      throw new CoreProtocolError(`the Fineract accounts map to invalid records: ${describeProblems(problems)}`, true);
    return valid;
  }

  /**
   * Readiness: `GET URL/actuator/health`, Spring Boot's health endpoint, with a short deadline;
   * 200 means up.
   */
  async ping(context: CoreCallContext): Promise<void> {
    const answer = await this.http.ping(calls.health().path, context);
    if (answer.status !== 200) throw new CoreUnavailable(`Fineract's health check answered ${answer.status}`, true);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** A 200 answer's JSON; any other status is the failure every call shares. */
  private ok(answer: Answer, request: FineractRequest): unknown {
    if (answer.status !== 200) {
      if (answer.status === 401 || answer.status === 403)
        this.options.logger?.error(
          { institution: this.options.institution, status: answer.status, call: request.template },
          `${CREDENTIALS_REFUSED}: check the institution's Fineract user, password, tenant and the user's read permissions`,
        );
      throw failureOf(answer, request);
    }
    return this.http.json(answer, request.template);
  }

  /** GET a client-side resource: 404 is `undefined` (the client is not there, or no longer). */
  private async optional(request: FineractRequest, context: CoreCallContext): Promise<unknown> {
    const answer = await this.http.send(request, context);
    if (answer.status === 404) return undefined;
    return this.ok(answer, request);
  }

  private async client(request: FineractRequest, context: CoreCallContext): Promise<ClientFacts | undefined> {
    const json = await this.optional(request, context);
    if (json === undefined) return undefined;
    return readAnswer(request, () => {
      const client = object(json, '');
      const dateOfBirth = absent(client, 'dateOfBirth') ? undefined : dateField(client, 'dateOfBirth', '');
      return {
        id: idField(client, 'id', ''),
        active: flag(client, 'active', ''),
        externalId: optionalString(client, 'externalId', ''),
        birthDay: dateOfBirth && `${pad(dateOfBirth.year, 4)}-${pad(dateOfBirth.month, 2)}-${pad(dateOfBirth.day, 2)}`,
      };
    });
  }

  /** Form B: the client by id or by external id, active. */
  private async clientByKey(customerKey: string, context: CoreCallContext): Promise<ClientFacts> {
    let client: ClientFacts | undefined;
    if (this.options.customerKey === 'id') {
      if (!FINERACT_ID.test(customerKey)) throw new CustomerNotRecognised();
      client = await this.client(calls.client(customerKey), context);
    } else {
      client = await this.client(calls.clientByExternalId(customerKey), context);
      if (client && client.externalId !== customerKey) client = undefined;
    }
    if (!client?.active) throw new CustomerNotRecognised();
    return client;
  }

  /**
   * Form A: the one active client with an identifier of the configured type holding the
   * SSN's digits (not inactive), born on the birth day, holding a savings or loan account
   * with that account number. Which test failed is never told.
   */
  private async clientByDemographics(
    subject: Extract<RegistrationSubject, { kind: 'demographics' }>,
    context: CoreCallContext,
  ): Promise<ClientFacts> {
    const candidates = new Set<string>();
    for (const text of ssnSearchTexts(subject.socialSecurityNumber)) {
      for (const id of await this.search(text, context)) candidates.add(id);
    }
    const matches = (await Promise.all([...candidates].map((id) => this.matchCandidate(id, subject, context)))).filter(
      (client): client is ClientFacts => client !== undefined,
    );
    if (matches.length !== 1) throw new CustomerNotRecognised();
    return matches[0]!;
  }

  /** Ids of the clients Fineract's text search finds for `text` (the SSN travels only in this body). */
  private async search(text: string, context: CoreCallContext): Promise<string[]> {
    const request = calls.search(JSON.stringify({ request: { text }, page: 0, size: SEARCH_PAGE_SIZE }));
    const answer = await this.http.send(request, context);
    const json = this.ok(answer, request);
    return readAnswer(request, () =>
      listField(object(json, ''), 'content', '').map((item, index) =>
        idField(object(item, `content[${index}]`), 'id', `content[${index}]`),
      ),
    );
  }

  private async matchCandidate(
    id: string,
    subject: Extract<RegistrationSubject, { kind: 'demographics' }>,
    context: CoreCallContext,
  ): Promise<ClientFacts | undefined> {
    if (!(await this.holdsSsn(id, subject.socialSecurityNumber, context))) return undefined;
    const client = await this.client(calls.client(id), context);
    if (!client?.active || client.birthDay !== subject.birthDay) return undefined;
    const request = calls.accounts(id);
    const json = await this.optional(request, context);
    if (json === undefined) return undefined;
    const accounts = readAnswer(request, () => readClientAccounts(json));
    const holds = (account: ListedAccount) => account.accountNo === subject.accountNumber;
    return accounts.savings.some(holds) || accounts.loans.some(holds) ? client : undefined;
  }

  /** Whether the client has an identifier of the configured type, not inactive, whose digits are the SSN's. */
  private async holdsSsn(id: string, digits: string, context: CoreCallContext): Promise<boolean> {
    const request = calls.identifiers(id);
    const json = await this.optional(request, context);
    if (json === undefined) return false;
    const documentType = this.options.ssnDocumentType.trim().toLowerCase();
    return readAnswer(request, () =>
      array(json, '').some((item, index) => {
        const at = `[${index}]`;
        const identifier = object(item, at);
        const type = object(identifier.documentType, `${at}.documentType`);
        if (optionalString(type, 'name', `${at}.documentType`)?.trim().toLowerCase() !== documentType) return false;
        const status = optionalString(identifier, 'status', at) ?? '';
        if (status.toLowerCase().endsWith('inactive')) return false;
        return stringField(identifier, 'documentKey', at).replace(/\D/g, '') === digits;
      }),
    );
  }

  private async savings(
    account: ListedAccount,
    mapping: MappingContext,
    context: CoreCallContext,
  ): Promise<AccountRecord> {
    const request = calls.savings(account.id);
    const depositRequest =
      account.depositType === 200
        ? calls.fixedDeposit(account.id)
        : account.depositType === 300
          ? calls.recurringDeposit(account.id)
          : undefined;
    const [details, term] = await Promise.all([
      this.accountAnswer(request, context),
      depositRequest &&
        this.accountAnswer(depositRequest, context).then((json) =>
          readAnswer(depositRequest, () => readTermDeposit(json, mapping)),
        ),
    ]);
    return readAnswer(request, () => savingsRecord(account, details, term, mapping));
  }

  private async loan(
    account: ListedAccount,
    mapping: MappingContext,
    context: CoreCallContext,
  ): Promise<AccountRecord> {
    const request = calls.loan(account.id);
    const details = await this.accountAnswer(request, context);
    return readAnswer(request, () => loanRecord(account, details, mapping));
  }

  /** An account the client's list named: a 404 now means the list and the account disagree. */
  private async accountAnswer(request: FineractRequest, context: CoreCallContext): Promise<unknown> {
    const answer = await this.http.send(request, context);
    return this.ok(answer, request);
  }
}
