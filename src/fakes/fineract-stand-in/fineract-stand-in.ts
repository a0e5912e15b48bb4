/**
 * A stand-in for Apache Fineract (docs/cores/fineract.md#stand-in): the calls the Fineract
 * connector makes, answered in Fineract's real wire shape (dates as arrays, rates in
 * percent, status objects, Fineract's error bodies), with the service user's Basic
 * credentials and the tenant header required. It records every request it receives, so
 * tests can say exactly which calls were made, and takes faults like the simulator's
 * (`POST /_sim/faults`). Plain node:http, like the simulator: it is the benchmarks' peer.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { isPlainObject } from '../../domain/json.js';
import { closeServer, listen, readBody, sendJson } from '../fake-http-server.js';
import {
  DEMO_CLIENTS,
  type StandInClient,
  type StandInLoan,
  type StandInSavings,
  type WireDate,
} from './stand-in-data.js';

export interface FineractStandInOptions {
  /** 0 (a free port) by default. */
  readonly port?: number;
  readonly host?: string;
  /** The one tenant served; `default` by default. */
  readonly tenant?: string;
  /** The service user; {@link STAND_IN_CREDENTIALS} by default. */
  readonly credentials?: { readonly username: string; readonly password: string };
  /** The clients served; {@link DEMO_CLIENTS} by default. */
  readonly clients?: readonly StandInClient[];
}

/** A request as the stand-in received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, below the context root's origin, e.g. `/fineract-provider/api/v1/clients/1`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Faults injected into the Fineract endpoints (not `/_sim/*`), until reset with `{}`. */
interface StandInFaults {
  readonly latencyMs: number;
  /** Share of calls answered with `errorStatus`, 0 to 1. */
  readonly errorRate: number;
  readonly errorStatus: number;
  /** Accounts answered without their `summary`, and dates written as strings. */
  readonly malformed: boolean;
}

export interface RunningFineractStandIn {
  /** The context root, e.g. `http://127.0.0.1:8091/fineract-provider`: coregate's `CORE_URL`. */
  readonly url: string;
  readonly tenant: string;
  readonly credentials: { readonly username: string; readonly password: string };
  /** The latest requests received (at least the last 10,000), oldest first (`/_sim/*` included). */
  readonly requests: RecordedRequest[];
  setFaults(faults: Partial<StandInFaults>): void;
  /** Replaces one client's data (a closed client, a deleted one with `undefined`). */
  setClient(id: number, client: StandInClient | undefined): void;
  close(): Promise<void>;
}

/** The demo service user: a read-only user the bank would create for coregate. */
export const STAND_IN_CREDENTIALS = Object.freeze({ username: 'coregate-reader', password: 'stand-in-password' });
/** The context root Fineract is deployed under. */
export const STAND_IN_CONTEXT_PATH = '/fineract-provider';

const NO_FAULTS: StandInFaults = { latencyMs: 0, errorRate: 0, errorStatus: 500, malformed: false };
const MAX_BODY_BYTES = 64 * 1024;

type Json = Record<string, unknown>;

/** Fineract's error body (`ApiGlobalErrorResponse`). */
function fineractError(status: number, code: string, message: string, errors: Json[] = []): Json {
  return {
    developerMessage: message,
    httpStatusCode: String(status),
    defaultUserMessage: message,
    userMessageGlobalisationCode: code,
    errors,
  };
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.developerMessage));
  }
}

function notFound(what: string, id: string | number): Refusal {
  const message = `${what} with identifier ${id} does not exist`;
  return new Refusal(
    404,
    fineractError(404, 'error.msg.resource.not.found', 'The requested resource is not available.', [
      {
        developerMessage: message,
        defaultUserMessage: message,
        userMessageGlobalisationCode: `error.msg.${what.toLowerCase().replace(/\s+/g, '')}.id.invalid`,
        parameterName: 'id',
        value: null,
        args: [{ value: id }],
      },
    ]),
  );
}

const CURRENCY = {
  code: 'USD',
  name: 'US Dollar',
  decimalPlaces: 2,
  inMultiplesOf: 1,
  displaySymbol: '$',
  nameCode: 'currency.USD',
  displayLabel: 'US Dollar ($)',
};

function savingsStatus(status: StandInSavings['status']): Json {
  const table = {
    submitted: [100, 'savingsAccountStatusType.submitted.and.pending.approval', 'Submitted and pending approval'],
    active: [300, 'savingsAccountStatusType.active', 'Active'],
    closed: [600, 'savingsAccountStatusType.closed', 'Closed'],
  } as const;
  const [id, code, value] = table[status];
  return {
    id,
    code,
    value,
    submittedAndPendingApproval: status === 'submitted',
    approved: status !== 'submitted',
    rejected: false,
    withdrawnByApplicant: false,
    active: status === 'active',
    closed: status === 'closed',
    prematureClosed: false,
    transferInProgress: false,
    transferOnHold: false,
    matured: false,
  };
}

function loanStatus(status: StandInLoan['status']): Json {
  const table = {
    submitted: [100, 'loanStatusType.submitted.and.pending.approval', 'Submitted and pending approval'],
    active: [300, 'loanStatusType.active', 'Active'],
    closed: [600, 'loanStatusType.closed.obligations.met', 'Closed (obligations met)'],
  } as const;
  const [id, code, value] = table[status];
  return {
    id,
    code,
    value,
    pendingApproval: status === 'submitted',
    waitingForDisbursal: false,
    active: status === 'active',
    closedObligationsMet: status === 'closed',
    closedWrittenOff: false,
    closedRescheduled: false,
    closed: status === 'closed',
    overpaid: false,
  };
}

const DEPOSIT_TYPES = {
  100: ['depositAccountType.savingsDeposit', 'Savings'],
  200: ['depositAccountType.fixedDeposit', 'Fixed Deposit'],
  300: ['depositAccountType.recurringDeposit', 'Recurring Deposit'],
  400: ['depositAccountType.currentDeposit', 'Current Deposit'],
} as const;

function depositType(id: StandInSavings['depositType']): Json {
  return { id, code: DEPOSIT_TYPES[id][0], value: DEPOSIT_TYPES[id][1] };
}

function displayName(client: StandInClient): string {
  return `${client.firstname} ${client.lastname}`;
}

/** Fineract's Gson leaves out fields whose value is null: so does the stand-in. */
function withOptional(body: Json, optional: Json): Json {
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) body[name] = value;
  return body;
}

/** The latest requests kept for inspection: a stand-in serving a long demo or a benchmark stays small. */
const KEPT_REQUESTS = 10_000;

class FineractStandIn {
  /** The latest requests (at least the last {@link KEPT_REQUESTS}, fewer than twice that), `/_sim/*` included. */
  readonly requests: RecordedRequest[] = [];
  private readonly callCounts = new Map<string, number>();
  private faults: StandInFaults = NO_FAULTS;
  private readonly clients = new Map<number, StandInClient>();
  private readonly authorization: Buffer;

  constructor(
    readonly tenant: string,
    readonly credentials: { readonly username: string; readonly password: string },
    clients: readonly StandInClient[],
  ) {
    for (const client of clients) this.clients.set(client.id, client);
    this.authorization = digest(
      `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`,
    );
  }

  setFaults(faults: Partial<StandInFaults>): void {
    this.faults = { ...NO_FAULTS, ...faults };
  }

  /** Keeps `request` among the latest ones and counts it by call (`/_sim/*` is not counted). */
  record(request: RecordedRequest): void {
    this.requests.push(request);
    // Trimmed in one go once twice as many are held: one copy per KEPT_REQUESTS requests, not one per request.
    if (this.requests.length >= 2 * KEPT_REQUESTS) this.requests.splice(0, this.requests.length - KEPT_REQUESTS);
    const path = request.path.split('?', 1)[0]!;
    if (path.startsWith('/_sim/')) return;
    const call = `${request.method} ${path
      .slice(STAND_IN_CONTEXT_PATH.length)
      .replace(/\/\d+/g, '/{id}')
      .replace(/(external-id\/)[^/]+/, '$1{externalId}')}`;
    this.callCounts.set(call, (this.callCounts.get(call) ?? 0) + 1);
  }

  /**
   * `GET /_sim/stats`: the Fineract calls received so far (not `/_sim/*`), in all and by call,
   * ids written `{id}` — what a benchmark divides by the reads it made.
   */
  stats(): Json {
    const byCall = Object.fromEntries(this.callCounts);
    return { requests: [...this.callCounts.values()].reduce((sum, count) => sum + count, 0), byCall };
  }

  setClient(id: number, client: StandInClient | undefined): void {
    if (client) this.clients.set(id, client);
    else this.clients.delete(id);
  }

  /** Answers one request below the context root; `undefined` path → 404. */
  async answer(method: string, url: URL, headers: IncomingHttpHeaders, body: string): Promise<[number, Json | Json[]]> {
    const path = url.pathname;
    if (path === '/_sim/faults' && method === 'POST') {
      const faults = readFaults(body);
      this.setFaults(faults);
      return [200, { ...this.faults }];
    }
    if (path === '/_sim/stats' && method === 'GET') return [200, this.stats()];
    const faults = this.faults;
    if (faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    if (faults.errorRate > 0 && Math.random() < faults.errorRate)
      return [
        faults.errorStatus,
        fineractError(faults.errorStatus, 'error.msg.platform.service.unavailable', 'injected fault'),
      ];
    if (path === '/actuator/health' && method === 'GET') return [200, { status: 'UP' }];
    try {
      this.authenticate(headers);
      return [200, this.route(method, path, url.searchParams, body)];
    } catch (error) {
      if (error instanceof Refusal) return [error.status, error.body];
      throw error;
    }
  }

  private authenticate(headers: IncomingHttpHeaders): void {
    const tenant = headers['fineract-platform-tenantid'];
    if (tenant === undefined)
      throw new Refusal(
        400,
        fineractError(
          400,
          'error.msg.platform.tenant.identifier.missing',
          "No tenant identifier found: Add request header of 'Fineract-Platform-TenantId' or add the parameter 'tenantIdentifier' to query string of request URL.",
        ),
      );
    if (tenant !== this.tenant)
      throw new Refusal(401, fineractError(401, 'error.msg.invalid.tenant.identifier', 'Invalid tenant identifier'));
    const given = headers.authorization;
    if (given === undefined || !timingSafeEqual(digest(given), this.authorization))
      throw new Refusal(401, fineractError(401, 'error.msg.not.authenticated', 'Unauthenticated. Please login.'));
  }

  private route(method: string, path: string, query: URLSearchParams, body: string): Json | Json[] {
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/api/v2/clients/search') return this.search(body);
    if (method === 'GET') {
      if ((match = /^\/api\/v1\/clients\/external-id\/([^/]+)$/.exec(path))) {
        const externalId = decodeURIComponent(match[1]!);
        const client = [...this.clients.values()].find((candidate) => candidate.externalId === externalId);
        if (!client) throw notFound('Client', externalId);
        return this.client(client);
      }
      if ((match = /^\/api\/v1\/clients\/(\d+)(\/identifiers|\/accounts)?$/.exec(path))) {
        const client = this.clients.get(Number(match[1]));
        if (!client) throw notFound('Client', match[1]!);
        if (match[2] === '/identifiers') return this.identifiers(client);
        if (match[2] === '/accounts') return this.accounts(client);
        return this.client(client);
      }
      if (
        (match = /^\/api\/v1\/(savingsaccounts|fixeddepositaccounts|recurringdepositaccounts|loans)\/(\d+)$/.exec(path))
      ) {
        const id = Number(match[2]);
        const associations = (query.get('associations') ?? '').split(',');
        if (match[1] === 'loans') {
          const found = this.find((client) => client.loans, id);
          if (!found) throw notFound('Loan', id);
          return this.loan(found[0], found[1], associations);
        }
        const found = this.find((client) => client.savings, id);
        const wanted = { savingsaccounts: undefined, fixeddepositaccounts: 200, recurringdepositaccounts: 300 }[
          match[1]!
        ];
        if (!found || (wanted !== undefined && found[1].depositType !== wanted))
          throw notFound(match[1] === 'savingsaccounts' ? 'Savings account' : 'Deposit account', id);
        return match[1] === 'savingsaccounts'
          ? this.savings(found[0], found[1], associations.includes('transactions'))
          : this.termDeposit(found[0], found[1]);
      }
    }
    throw new Refusal(
      404,
      fineractError(404, 'error.msg.resource.not.found', 'The requested resource is not available.'),
    );
  }

  private find<T extends { id: number }>(
    accountsOf: (client: StandInClient) => readonly T[],
    id: number,
  ): [StandInClient, T] | undefined {
    for (const client of this.clients.values()) {
      const account = accountsOf(client).find((candidate) => candidate.id === id);
      if (account) return [client, account];
    }
    return undefined;
  }

  /** `POST /v2/clients/search`: like Fineract, a substring match on account number, name, external id and identifiers' keys. */
  private search(body: string): Json {
    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      throw new Refusal(400, fineractError(400, 'error.msg.invalid.request.body', 'The request body is not JSON.'));
    }
    const text =
      isPlainObject(request) && isPlainObject(request.request) && typeof request.request.text === 'string'
        ? request.request.text
        : '';
    const size = isPlainObject(request) && typeof request.size === 'number' ? request.size : 20;
    const found = [...this.clients.values()].filter(
      (client) =>
        pad(client.id, 9).includes(text) ||
        displayName(client).includes(text) ||
        (client.externalId ?? '').includes(text) ||
        client.identifiers.some((identifier) => identifier.documentKey.includes(text)),
    );
    const content = found.slice(0, size).map((client) =>
      withOptional(
        {
          id: client.id,
          displayName: displayName(client),
          accountNumber: pad(client.id, 9),
          officeId: 1,
          officeName: 'Head Office',
          status: client.active
            ? { id: 300, code: 'clientStatusType.active', value: 'Active' }
            : { id: 600, code: 'clientStatusType.closed', value: 'Closed' },
        },
        { externalId: client.externalId },
      ),
    );
    return {
      content,
      totalElements: found.length,
      totalPages: Math.ceil(found.length / Math.max(1, size)),
      size,
      number: 0,
      numberOfElements: content.length,
      first: true,
      last: found.length <= size,
      empty: content.length === 0,
    };
  }

  private client(client: StandInClient): Json {
    return withOptional(
      {
        id: client.id,
        accountNo: pad(client.id, 9),
        status: client.active
          ? { id: 300, code: 'clientStatusType.active', value: 'Active' }
          : { id: 600, code: 'clientStatusType.closed', value: 'Closed' },
        active: client.active,
        firstname: client.firstname,
        lastname: client.lastname,
        displayName: displayName(client),
        officeId: 1,
        officeName: 'Head Office',
        groups: [],
      },
      { externalId: client.externalId, dateOfBirth: this.date(client.dateOfBirth) },
    );
  }

  private identifiers(client: StandInClient): Json[] {
    return client.identifiers.map((identifier, index) => ({
      id: client.id * 100 + index,
      clientId: client.id,
      documentType: { id: 1 + index, name: identifier.documentType, active: true, mandatory: false },
      documentKey: identifier.documentKey,
      status: identifier.active ? 'clientIdentifierStatusType.active' : 'clientIdentifierStatusType.inactive',
    }));
  }

  private accounts(client: StandInClient): Json {
    const savingsAccounts = client.savings.map((account) => ({
      id: account.id,
      accountNo: account.accountNo,
      productId: account.depositType,
      productName: account.productName,
      shortProductName: account.shortProductName,
      status: savingsStatus(account.status),
      currency: CURRENCY,
      accountBalance: account.accountBalance,
      accountType: { id: 1, code: 'accountType.individual', value: 'Individual' },
      timeline: withOptional({ submittedOnDate: account.submittedOn }, { activatedOnDate: account.activatedOn }),
      depositType: depositType(account.depositType),
    }));
    const loanAccounts = client.loans.map((loan) =>
      withOptional(
        {
          id: loan.id,
          accountNo: loan.accountNo,
          productId: 1,
          productName: loan.productName,
          shortProductName: loan.shortProductName,
          status: loanStatus(loan.status),
          loanType: { id: 1, code: 'accountType.individual', value: 'Individual' },
          loanCycle: 1,
          timeline: withOptional({ submittedOnDate: loan.submittedOn }, { actualDisbursementDate: loan.disbursedOn }),
          inArrears: (loan.totalOverdue ?? 0) > 0,
          originalLoan: loan.principal,
          loanBalance: loan.totalOutstanding,
        },
        { externalId: loan.externalId },
      ),
    );
    // Fineract leaves out an empty list.
    return withOptional(
      {},
      {
        savingsAccounts: savingsAccounts.length > 0 ? savingsAccounts : undefined,
        loanAccounts: loanAccounts.length > 0 ? loanAccounts : undefined,
      },
    );
  }

  private date(date: WireDate | undefined): unknown {
    if (date === undefined) return undefined;
    return this.faults.malformed ? date.map((part) => String(part).padStart(2, '0')).join('-') : [...date];
  }

  private savings(client: StandInClient, account: StandInSavings, withTransactions: boolean): Json {
    const body = withOptional(
      {
        id: account.id,
        accountNo: account.accountNo,
        depositType: depositType(account.depositType),
        clientId: client.id,
        clientName: displayName(client),
        savingsProductId: account.depositType,
        savingsProductName: account.productName,
        fieldOfficerId: 0,
        status: savingsStatus(account.status),
        timeline: withOptional(
          { submittedOnDate: this.date(account.submittedOn) },
          { approvedOnDate: this.date(account.activatedOn), activatedOnDate: this.date(account.activatedOn) },
        ),
        currency: CURRENCY,
        nominalAnnualInterestRate: account.nominalAnnualInterestRate,
        interestCompoundingPeriodType: {
          id: 1,
          code: 'savings.interest.period.savingsCompoundingInterestPeriodType.daily',
          value: 'Daily',
        },
        allowOverdraft: account.overdraftLimit !== undefined,
        enforceMinRequiredBalance: false,
        withHoldTax: false,
      },
      {
        externalId: account.externalId,
        overdraftLimit: account.overdraftLimit,
        summary: this.faults.malformed
          ? undefined
          : withOptional(
              {
                currency: CURRENCY,
                totalDeposits: account.transactions
                  .filter((t) => t.kind === 'deposit' && !t.reversed)
                  .reduce((sum, t) => sum + t.amount, 0),
                totalInterestPosted: account.transactions
                  .filter((t) => t.kind === 'interestPosting' && !t.reversed)
                  .reduce((sum, t) => sum + t.amount, 0),
                accountBalance: account.accountBalance,
                totalOverdraftInterestDerived: 0,
              },
              { availableBalance: account.availableBalance, interestNotPosted: account.interestNotPosted },
            ),
      },
    );
    if (withTransactions && account.transactions.length > 0) {
      body.transactions = account.transactions.map((transaction) => ({
        id: transaction.id,
        transactionType: savingsTransactionType(transaction.kind),
        accountId: account.id,
        accountNo: account.accountNo,
        date: this.date(transaction.date),
        currency: CURRENCY,
        amount: transaction.amount,
        reversed: transaction.reversed ?? false,
        submittedOnDate: this.date(transaction.date),
        interestedPostedAsOn: false,
      }));
    }
    return body;
  }

  private termDeposit(client: StandInClient, account: StandInSavings): Json {
    return withOptional(
      {
        id: account.id,
        accountNo: account.accountNo,
        clientId: client.id,
        clientName: displayName(client),
        savingsProductId: account.depositType,
        savingsProductName: account.productName,
        status: savingsStatus(account.status),
        timeline: { submittedOnDate: this.date(account.submittedOn) },
        currency: CURRENCY,
        preClosurePenalApplicable: false,
      },
      {
        externalId: account.externalId,
        depositAmount: account.depositAmount,
        maturityDate: this.date(account.maturityDate),
        summary: this.faults.malformed ? undefined : { currency: CURRENCY, accountBalance: account.accountBalance },
      },
    );
  }

  private loan(client: StandInClient, loan: StandInLoan, associations: string[]): Json {
    const body = withOptional(
      {
        id: loan.id,
        accountNo: loan.accountNo,
        status: loanStatus(loan.status),
        clientId: client.id,
        clientName: displayName(client),
        loanProductId: 1,
        loanProductName: loan.productName,
        loanType: { id: 1, code: 'accountType.individual', value: 'Individual' },
        currency: CURRENCY,
        principal: loan.principal,
        approvedPrincipal: loan.principal,
        annualInterestRate: loan.annualInterestRate,
        numberOfRepayments: loan.periods.length,
        timeline: withOptional(
          { submittedOnDate: this.date(loan.submittedOn), expectedMaturityDate: this.date(loan.expectedMaturityDate) },
          { actualDisbursementDate: this.date(loan.disbursedOn) },
        ),
      },
      {
        externalId: loan.externalId,
        summary: this.faults.malformed
          ? undefined
          : withOptional(
              {
                currency: CURRENCY,
                principalDisbursed: loan.disbursedOn ? loan.principal : 0,
                totalOutstanding: loan.totalOutstanding,
              },
              { totalOverdue: loan.totalOverdue },
            ),
      },
    );
    if (associations.includes('repaymentSchedule')) {
      body.repaymentSchedule = {
        currency: CURRENCY,
        periods: [
          // Period 0 is the disbursement: no `period` number, no `complete`.
          ...(loan.disbursedOn ? [{ dueDate: this.date(loan.disbursedOn), principalDisbursed: loan.principal }] : []),
          ...loan.periods.map((period, index) => ({
            period: index + 1,
            dueDate: this.date(period.dueDate),
            complete: period.complete,
          })),
        ],
      };
    }
    if (associations.includes('transactions') && loan.transactions.length > 0) {
      body.transactions = loan.transactions.map((transaction) =>
        withOptional(
          {
            id: transaction.id,
            type: loanTransactionType(transaction.kind),
            date: this.date(transaction.date),
            currency: CURRENCY,
            amount: transaction.amount,
            manuallyReversed: transaction.manuallyReversed ?? false,
          },
          { interestPortion: transaction.interestPortion },
        ),
      );
    }
    return body;
  }
}

function savingsTransactionType(kind: 'deposit' | 'withdrawal' | 'interestPosting'): Json {
  const ids = { deposit: 1, withdrawal: 2, interestPosting: 3 };
  return {
    id: ids[kind],
    code: `savingsAccountTransactionType.${kind === 'interestPosting' ? 'interest.posting' : kind}`,
    value: kind === 'interestPosting' ? 'Interest Posting' : kind[0]!.toUpperCase() + kind.slice(1),
    deposit: kind === 'deposit',
    withdrawal: kind === 'withdrawal',
    interestPosting: kind === 'interestPosting',
    feeDeduction: false,
  };
}

function loanTransactionType(kind: 'disbursement' | 'repayment'): Json {
  return {
    id: kind === 'disbursement' ? 1 : 2,
    code: `loanTransactionType.${kind}`,
    value: kind === 'disbursement' ? 'Disbursement' : 'Repayment',
    disbursement: kind === 'disbursement',
    repayment: kind === 'repayment',
    contra: false,
    waiveInterest: false,
    writeOff: false,
  };
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function readFaults(body: string): Partial<StandInFaults> {
  let json: unknown;
  try {
    json = body.trim() === '' ? {} : JSON.parse(body);
  } catch {
    throw new Refusal(400, fineractError(400, 'error.msg.invalid.request.body', 'The request body is not JSON.'));
  }
  if (!isPlainObject(json))
    throw new Refusal(400, fineractError(400, 'error.msg.invalid.request.body', 'Expected an object.'));
  const faults: { -readonly [K in keyof StandInFaults]?: StandInFaults[K] } = {};
  if (typeof json.latencyMs === 'number' && json.latencyMs >= 0) faults.latencyMs = json.latencyMs;
  if (typeof json.errorRate === 'number' && json.errorRate >= 0 && json.errorRate <= 1)
    faults.errorRate = json.errorRate;
  if (typeof json.errorStatus === 'number' && Number.isInteger(json.errorStatus)) faults.errorStatus = json.errorStatus;
  if (typeof json.malformed === 'boolean') faults.malformed = json.malformed;
  return faults;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body);
}

/** Starts the stand-in; `url` is the context root to configure as coregate's `CORE_URL`. */
export async function startFineractStandIn(options: FineractStandInOptions = {}): Promise<RunningFineractStandIn> {
  const standIn = new FineractStandIn(
    options.tenant ?? 'default',
    options.credentials ?? STAND_IN_CREDENTIALS,
    options.clients ?? DEMO_CLIENTS,
  );
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req, MAX_BODY_BYTES);
      const rawPath = req.url ?? '/';
      standIn.record({ method: req.method ?? 'GET', path: rawPath, headers: req.headers, body });
      const url = new URL(rawPath, 'http://stand-in');
      if (url.pathname.startsWith('/_sim/')) {
        try {
          const [status, answer] = await standIn.answer(req.method ?? 'GET', url, req.headers, body);
          send(res, status, answer);
        } catch (error) {
          if (error instanceof Refusal) send(res, error.status, error.body);
          else throw error;
        }
        return;
      }
      if (!url.pathname.startsWith(`${STAND_IN_CONTEXT_PATH}/`)) {
        send(res, 404, fineractError(404, 'error.msg.resource.not.found', 'The requested resource is not available.'));
        return;
      }
      const inner = new URL(url.pathname.slice(STAND_IN_CONTEXT_PATH.length) + url.search, 'http://stand-in');
      const [status, answer] = await standIn.answer(req.method ?? 'GET', inner, req.headers, body);
      if (!res.destroyed) send(res, status, answer);
    })().catch(() => {
      if (!res.headersSent)
        send(res, 500, fineractError(500, 'error.msg.platform.server.side.error', 'Internal error'));
    });
  });
  const origin = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1', 'http');
  return {
    url: `${origin}${STAND_IN_CONTEXT_PATH}`,
    tenant: standIn.tenant,
    credentials: standIn.credentials,
    requests: standIn.requests,
    setFaults: (faults) => standIn.setFaults(faults),
    setClient: (id, client) => standIn.setClient(id, client),
    close: () => closeServer(server, 0),
  };
}
