/**
 * A {@link CoreConnector} for Apache Fineract's back-office REST API (docs/cores/fineract.md),
 * spoken by coregate itself with a read-only service user. Registration finds the customer
 * among Fineract's clients; the "session" is coregate's own sealed token naming the client
 * (`session-token.ts`); accounts are read from Fineract and mapped to account records
 * (`account-mapping.ts`). Only the calls listed in docs/cores/fineract.md#calls are made.
 * Error messages and log lines name calls by their path template, never a social security
 * number, an account number, a birth date or a token.
 */
import type { Semaphore } from 'async-mutex';
import type { Logger } from 'pino';
import type { AccountRecord } from '../../../domain/account.js';
import {
  FINERACT_CUSTOMER_KEY_MODES,
  FINERACT_SSN_LOOKUP_MODES,
  type CoreCredentials,
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
  type TransactionPage,
  type TransactionPageRequest,
} from '../../../ports/core-connector.js';
import { describeProblems, readAccountRecord, type Problem } from '../account-record.js';
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
import { FineractClientLookup } from './client-lookup.js';
import { calls, PROBE_CLIENT_ID } from './fineract-calls.js';
import { failureOf, fineractHttpClient } from './fineract-http.js';
import { callGate, FineractReader, readAnswer } from './fineract-reader.js';
import { YearInterest } from './interest-search.js';
import { openSession, sealSession } from './session-token.js';
import { FineractTransactionReader } from './transaction-reader.js';

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

/** Active accounts one read maps at most: a client beyond it is refused, not read in part. */
const MAX_ACTIVE_ACCOUNTS = 500;
const CUSTOMER_KEY = new RegExp(CUSTOMER_KEY_PATTERN);
/** An account answer that named another client: counted, never passed on. */
const FOREIGN = Symbol('another client');

export class FineractCoreConnector implements CoreConnector {
  private readonly reader: FineractReader;
  private readonly lookup: FineractClientLookup;
  private readonly interest: YearInterest;
  private readonly transactions: FineractTransactionReader;
  private readonly binding: { readonly institution: string; readonly tenant: string };

  constructor(readonly options: FineractCoreConnectorOptions) {
    if (!(FINERACT_CUSTOMER_KEY_MODES as readonly string[]).includes(options.customerKey))
      throw new TypeError(`the Fineract customer key mode must be one of ${FINERACT_CUSTOMER_KEY_MODES.join(', ')}`);
    if (!(FINERACT_SSN_LOOKUP_MODES as readonly string[]).includes(options.ssnLookup))
      throw new TypeError(`the Fineract SSN lookup must be one of ${FINERACT_SSN_LOOKUP_MODES.join(', ')}`);
    if (!Number.isSafeInteger(options.sessionTtlSeconds) || options.sessionTtlSeconds < 1)
      throw new TypeError('the Fineract session TTL must be a whole number of seconds, at least 1');
    const http = fineractHttpClient({
      baseUrl: options.baseUrl,
      credentials: options.credentials,
      tenant: options.tenant,
      timeoutMs: options.timeoutMs,
      tls: options.tls,
      connections: options.connections,
    });
    this.reader = new FineractReader(http, {
      institution: options.institution,
      tenant: options.tenant,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.lookup = new FineractClientLookup(this.reader, options);
    this.interest = new YearInterest(this.reader, options.sessionTtlSeconds * 1000);
    this.transactions = new FineractTransactionReader(this.reader);
    this.binding = { institution: options.institution, tenant: options.tenant };
  }

  async startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    const client =
      subject.kind === 'demographics'
        ? await this.lookup.byDemographics(subject, context)
        : await this.lookup.byKey(subject.customerKey, context);
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
    if (!session) throw new SessionRejected('locally');
    const request = calls.accounts(session.clientId);
    const answer = await this.reader.send(request, context);
    // The client is gone: the session is over, and renewal will find out whether the customer is too.
    if (answer.status === 404) throw new SessionRejected();
    const listed = readAnswer(request, () => readClientAccounts(this.reader.ok(answer, request, context)));
    const savings = listed.savings.filter((account) => account.active);
    const loans = listed.loans.filter((account) => account.active);
    if (savings.length + loans.length > MAX_ACTIVE_ACCOUNTS)
      throw new CoreProtocolError(
        `the Fineract client holds more than ${MAX_ACTIVE_ACCOUNTS} active accounts, the limit of one read`,
        true,
      );
    const mapping: MappingContext = {
      clientId: session.clientId,
      customerKey: session.customerKey,
      tenant: this.options.tenant,
      now: this.options.clock.now(),
    };
    const gate = callGate();
    const records = await Promise.all([
      ...savings.map((account) => this.savings(account, mapping, context, gate)),
      ...loans.map((account) => this.loan(account, mapping, context, gate)),
    ]);
    const foreign = records.filter((record) => record === FOREIGN).length;
    if (foreign > 0)
      throw new CoreProtocolError(
        `Fineract answered ${foreign} of ${records.length} accounts for another client than the session's`,
        true,
      );
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
   * One page of an account's transactions (docs/cores/fineract.md#transactions), through the
   * same sealed session as accounts: an account that is not one of the client's active ones is
   * not found (`AccountNotFound`).
   */
  async listTransactions(
    delegateReferenceId: string,
    request: TransactionPageRequest,
    context: CoreCallContext,
  ): Promise<TransactionPage> {
    const session = openSession(this.options.sealer, this.binding, delegateReferenceId, this.options.clock.now());
    if (!session) throw new SessionRejected('locally');
    return this.transactions.page(
      { clientId: session.clientId, tenant: this.options.tenant },
      request,
      context,
      callGate(),
    );
  }

  /**
   * Readiness: `GET URL/actuator/health` (Spring Boot's, which needs neither tenant nor user,
   * so proves neither), then one authenticated read the service user's permissions allow —
   * client 0, which Fineract answers with its own 404 once tenant, user and `READ_CLIENT`
   * hold. Both with the short readiness deadline.
   */
  async ping(context: CoreCallContext): Promise<void> {
    const health = await this.reader.http.ping(calls.health().path, context);
    if (health.status !== 200) throw new CoreUnavailable(`Fineract's health check answered ${health.status}`, true);
    const probe = calls.client(PROBE_CLIENT_ID);
    const answer = await this.reader.http.ping(probe.path, context);
    if (answer.status === 200 || (answer.status === 404 && /"userMessageGlobalisationCode"\s*:/.test(answer.text)))
      return;
    this.reader.logRefusal(answer, probe, context);
    const failure = failureOf(answer, probe, this.options.tenant);
    throw new CoreUnavailable(
      `not ready: ${failure.message.replace(/^core (protocol error|unavailable): /, '')}`,
      true,
    );
  }

  close(): Promise<void> {
    return this.reader.http.close();
  }

  private async savings(
    account: ListedAccount,
    mapping: MappingContext,
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<AccountRecord | typeof FOREIGN> {
    const request = calls.savings(account.id);
    const depositRequest =
      account.depositType === 200
        ? calls.fixedDeposit(account.id)
        : account.depositType === 300
          ? calls.recurringDeposit(account.id)
          : undefined;
    // An account the client's list named: a 404 now means the list and the account disagree.
    const [details, term] = await Promise.all([
      this.reader.required(request, context, gate),
      depositRequest && this.reader.required(depositRequest, context, gate),
    ]);
    // Deposit type 100's interest postings come from the paged search, when its answer leaves them
    // open; a term deposit's from its own answer.
    const searchedInterest = depositRequest
      ? undefined
      : await this.interest.posted(account.id, details, request, mapping, context, gate);
    return owned(() => {
      const deposit = depositRequest && readAnswer(depositRequest, () => readTermDeposit(term, mapping));
      return readAnswer(request, () => savingsRecord(account, details, deposit, mapping, searchedInterest));
    });
  }

  private async loan(
    account: ListedAccount,
    mapping: MappingContext,
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<AccountRecord | typeof FOREIGN> {
    const request = calls.loan(account.id);
    const details = await this.reader.required(request, context, gate);
    return owned(() => readAnswer(request, () => loanRecord(account, details, mapping)));
  }
}

/** The record `map` makes, or {@link FOREIGN} when the answer was about another client's account. */
function owned(map: () => AccountRecord): AccountRecord | typeof FOREIGN {
  try {
    return map();
  } catch (error) {
    if (error instanceof ForeignAccount) return FOREIGN;
    throw error;
  }
}
