/**
 * `coregate core check` (docs/connecting-your-core.md#coregate-core-check): what a bank runs
 * against its core before going live, through the CoreConnector port alone, so it checks the
 * reference protocol over HTTP, the in-process simulator and the Fineract connector alike.
 *
 * The checks, in order:
 * - `readiness`: the core answers its readiness call (`/readyz` makes the same call);
 * - `form_a`: with a test customer's demographics (from a file, never a command line), a
 *   registration by demographics finds exactly that customer — on Apache Fineract, whether
 *   the release and the SSN lookup setting match identifiers at all;
 * - `session`: with a customer key, a session starts for it (never demographics: a command line
 *   ends up in shell histories and process lists);
 * - `accounts`: that session's accounts, every record an account record of
 *   docs/core-protocol.md, field by field;
 * - `transactions`: the first account's first page of transactions (protocol 1.1, optional: a core
 *   without the call passes, saying platforms get 501), every record a transaction record, newest
 *   first, of that account;
 * - `forged_session_rejected`: a delegate reference ID the core never issued (that session's
 *   with one character changed, or random without a session) is refused as a rejected session;
 *   a connector that refuses it without calling the core (Fineract's sealed handles) is named
 *   so in the detail, since the check then says nothing of the core;
 * - `end_session`: that session ends, where the connector offers the call.
 *
 * A detail says what was expected and, on a failure, what came instead: counts, field names and
 * error messages, never a value read from the core or a delegate reference ID.
 */
import { randomBytes } from 'node:crypto';
import {
  CoreError,
  CustomerNotRecognised,
  DemographicsNotAccepted,
  SessionRejected,
  TransactionsNotSupported,
  type CoreConnector,
  type CoreSession,
} from '../ports/core-connector.js';
import type { RegistrationSubject } from '../domain/registration.js';
import { DEFAULT_PAGE_SIZE, DEFAULT_WINDOW_DAYS, addDays, utcDay } from '../domain/transaction-query.js';
import { checkPage, transactionPage } from './list-transactions.js';
import { notFound, type FieldProblem } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { InstitutionCoreFactory } from '../ports/institution-core-factory.js';
import type { InstitutionStore } from '../ports/institution-store.js';

/** The checks' names, in the order they run. */
type CoreCheckName =
  'readiness' | 'form_a' | 'session' | 'accounts' | 'transactions' | 'forged_session_rejected' | 'end_session';

/** A test customer's demographics, for the `form_a` check. */
export type FormADemographics = Omit<Extract<RegistrationSubject, { kind: 'demographics' }>, 'kind'>;

interface CoreCheckResult {
  readonly name: CoreCheckName;
  readonly ok: boolean;
  readonly detail: string;
}

/** `ok` only when every check that ran passed. */
export interface CoreCheckReport {
  readonly ok: boolean;
  readonly checks: readonly CoreCheckResult[];
}

/** The problems of one account record (empty when it is one); `path` prefixes each problem's path. */
export type AccountRecordCheck = (record: unknown, path: string) => readonly FieldProblem[];

export interface CoreCheckOptions {
  /** Starts a session for this customer and checks its accounts; without it only readiness and a forged ID are checked. */
  readonly customerKey?: string | undefined;
  /** Registers this test customer by demographics; with `customerKey` too, the key found must be it. Never printed. */
  readonly formA?: FormADemographics | undefined;
  /** The institution the calls are made for (logs and metrics). */
  readonly institution: string;
  readonly now: () => Date;
  readonly checkRecord: AccountRecordCheck;
}

const SHOWN_PROBLEMS = 5;

/** What an error says, for a detail: a core error's message names what went wrong, never a value. */
function described(error: unknown): string {
  if (error instanceof CoreError) return `"${error.message}"`;
  return `an unexpected error: "${error instanceof Error ? error.message : String(error)}"`;
}

/**
 * The same length and alphabet, one character changed: a core that checks integrity refuses it.
 * The character is in the middle of the last `.`-separated part (a sealed token's ciphertext), not
 * at its end, where base64 ignores the low bits and a change could leave the bytes as they were.
 */
function tampered(delegateReferenceId: string): string {
  const lastPart = delegateReferenceId.lastIndexOf('.') + 1;
  const partLength = delegateReferenceId.length - lastPart;
  const at = partLength >= 4 ? lastPart + Math.floor(partLength / 2) : Math.floor(delegateReferenceId.length / 2);
  const replacement = delegateReferenceId[at] === 'A' ? 'B' : 'A';
  return `${delegateReferenceId.slice(0, at)}${replacement}${delegateReferenceId.slice(at + 1)}`;
}

/** Runs the checks against `core`; never throws for what the core does. */
export async function checkCore(core: CoreConnector, options: CoreCheckOptions): Promise<CoreCheckReport> {
  const checks: CoreCheckResult[] = [];
  const context = () => ({
    requestId: `core-check-${randomBytes(8).toString('hex')}`,
    institution: options.institution,
  });
  const pass = (name: CoreCheckName, detail: string) => checks.push({ name, ok: true, detail });
  const fail = (name: CoreCheckName, detail: string) => checks.push({ name, ok: false, detail });

  try {
    if (core.ping) {
      await core.ping(context());
      pass('readiness', 'the core answered its readiness call');
    } else {
      pass('readiness', 'this connector has no readiness call: the core is taken as reachable');
    }
  } catch (error) {
    fail('readiness', `expected the core to answer its readiness call; got ${described(error)}`);
  }

  if (options.formA) await checkFormA(core, options.formA, options.customerKey, context(), pass, fail);

  let session: CoreSession | undefined;
  if (options.customerKey !== undefined) {
    try {
      const started = await core.startSession({ kind: 'customerKey', customerKey: options.customerKey }, context());
      const seconds = Math.round((started.expiresAt.getTime() - options.now().getTime()) / 1000);
      if (started.customerKey !== options.customerKey) {
        fail('session', 'expected the session to be for the customer key given; the core named another');
      } else if (seconds <= 0) {
        fail('session', 'expected the session to expire in the future; it has expired already');
      } else {
        session = started;
        pass('session', `a session started for the customer key given, expiring in ${seconds} s`);
      }
    } catch (error) {
      fail('session', `expected a session for the customer key given; got ${described(error)}`);
    }
  }

  let firstAccountId: string | undefined;
  if (session) {
    try {
      const records: unknown[] = await core.listAccounts(session.delegateReferenceId, context());
      const first = records[0] as { id?: unknown } | undefined;
      if (typeof first?.id === 'string') firstAccountId = first.id;
      const problems = records.flatMap((record, index) => options.checkRecord(record, `accounts[${index}]`));
      if (problems.length === 0) {
        pass('accounts', `${records.length} account(s), each record an account record with every field`);
      } else {
        const shown = problems.slice(0, SHOWN_PROBLEMS).map((problem) => `${problem.path}: ${problem.message}`);
        if (problems.length > SHOWN_PROBLEMS) shown.push(`and ${problems.length - SHOWN_PROBLEMS} more`);
        fail('accounts', `expected every record to be an account record (docs/core-protocol.md); ${shown.join('; ')}`);
      }
    } catch (error) {
      fail('accounts', `expected the session's accounts; got ${described(error)}`);
    }
  }

  if (session && firstAccountId !== undefined)
    await checkTransactions(core, session, firstAccountId, options, context, pass, fail);

  const forgedFrom = session ? "the session's delegate reference ID with one character changed" : 'a random one';
  try {
    const forged = session
      ? tampered(session.delegateReferenceId)
      : `coregate-check-${randomBytes(24).toString('base64url')}`;
    const answered = await core.listAccounts(forged, context());
    fail(
      'forged_session_rejected',
      `expected a delegate reference ID the core never issued (${forgedFrom}) to be rejected; the core answered with ${answered.length} account(s)`,
    );
  } catch (error) {
    if (error instanceof SessionRejected) {
      // A connector that refuses it itself says nothing of the core (it may be down): the line says so.
      const locally = error.where === 'locally' ? ' (checked locally, the core was not asked)' : '';
      pass(
        'forged_session_rejected',
        `a delegate reference ID the core never issued (${forgedFrom}) was rejected${locally}`,
      );
    } else {
      fail(
        'forged_session_rejected',
        `expected a delegate reference ID the core never issued (${forgedFrom}) to be rejected as an invalid session; got ${described(error)}`,
      );
    }
  }

  if (session && core.endSession) {
    try {
      await core.endSession(session.delegateReferenceId, context());
      pass('end_session', 'the session was ended');
    } catch (error) {
      fail('end_session', `expected the session to end; got ${described(error)}`);
    }
  }

  return { ok: checks.every((check) => check.ok), checks };
}

/** The `transactions` check: one page of the last 90 days of `accountId`, held to the protocol. */
async function checkTransactions(
  core: CoreConnector,
  session: CoreSession,
  accountId: string,
  options: CoreCheckOptions,
  context: () => { requestId: string; institution: string },
  pass: (name: CoreCheckName, detail: string) => void,
  fail: (name: CoreCheckName, detail: string) => void,
): Promise<void> {
  const today = utcDay(options.now());
  try {
    const page = await transactionPage(
      core,
      session.delegateReferenceId,
      {
        accountId,
        fromDate: addDays(today, -DEFAULT_WINDOW_DAYS),
        toDate: today,
        status: 'both',
        limit: DEFAULT_PAGE_SIZE,
      },
      context(),
    );
    checkPage(page.transactions, accountId, 'both', DEFAULT_PAGE_SIZE);
    pass(
      'transactions',
      `${page.transactions.length} transaction(s) of the first account in the last ${DEFAULT_WINDOW_DAYS} days, newest first, each a transaction record${page.nextCursor === null ? '' : ', and a cursor to the next page'}`,
    );
  } catch (error) {
    if (error instanceof TransactionsNotSupported) {
      pass(
        'transactions',
        'the core does not offer transactions (protocol 1.0): platforms get 501 not_supported_by_core',
      );
    } else {
      fail(
        'transactions',
        `expected a page of the first account's transactions (docs/core-protocol.md, section 3b); got ${described(error)}`,
      );
    }
  }
}

const FORM_A_EXPECTED = 'expected the test customer of --form-a-file to be found by demographics';

/** `form_a`: the test customer found by demographics, exactly; a detail never repeats what the file holds. */
async function checkFormA(
  core: CoreConnector,
  demographics: FormADemographics,
  customerKey: string | undefined,
  context: { requestId: string; institution: string },
  pass: (name: CoreCheckName, detail: string) => void,
  fail: (name: CoreCheckName, detail: string) => void,
): Promise<void> {
  try {
    const found = await core.startSession({ kind: 'demographics', ...demographics }, context);
    if (customerKey !== undefined && found.customerKey !== customerKey)
      fail('form_a', `${FORM_A_EXPECTED} as the customer of --customer-key; the core found another customer`);
    else pass('form_a', 'the test customer was found by demographics');
  } catch (error) {
    if (error instanceof DemographicsNotAccepted)
      fail('form_a', `${FORM_A_EXPECTED}; this institution registers customers by key only (SSN lookup off)`);
    else if (error instanceof CustomerNotRecognised)
      fail(
        'form_a',
        `${FORM_A_EXPECTED}; the core recognised no one. On Apache Fineract 1.9 and 1.10 the client search does not match identifiers: set --fineract-ssn-lookup identifier-search, or off (docs/cores/fineract.md#releases)`,
      );
    else fail('form_a', `${FORM_A_EXPECTED}; got ${described(error)}`);
  }
}

/** `core check --institution ID`: the institution's core, built afresh from its record and closed after. */
export class CoreChecker {
  constructor(
    private readonly store: InstitutionStore,
    /** Unguarded transports: a check sees what the core does, with no retry or breaker in between. */
    private readonly transports: InstitutionCoreFactory,
    private readonly clock: Clock,
    private readonly checkRecord: AccountRecordCheck,
  ) {}

  /** A disabled institution is checked too: that is how a bank tries its core before serving it. */
  async check(
    institution: string,
    customerKey: string | undefined,
    formA?: FormADemographics,
  ): Promise<CoreCheckReport> {
    const record = await this.store.find(institution);
    if (!record) throw notFound(`no institution "${institution}"`);
    let core: CoreConnector;
    try {
      core = this.transports.create(record);
    } catch (error) {
      return {
        ok: false,
        checks: [
          {
            name: 'readiness',
            ok: false,
            detail: `expected a connector for the core; it could not be built: ${(error as Error).message}`,
          },
        ],
      };
    }
    try {
      return await checkCore(core, {
        customerKey,
        formA,
        institution,
        now: () => this.clock.now(),
        checkRecord: this.checkRecord,
      });
    } finally {
      await core.close();
    }
  }
}
