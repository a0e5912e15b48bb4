/**
 * The bank's core banking system, as coregate needs it: start a session for a
 * customer (getting a delegate reference ID), and read accounts with that ID.
 * Implementations: the two transports, the HTTP connector (reference core
 * protocol) and the in-process simulator, and the guarded connector each
 * institution's transport is wrapped in (retries, circuit breaker, metrics).
 */
import type { AccountRecord } from '../domain/account.js';
import type { StatusFilter, TransactionRecord } from '../domain/transaction.js';
import type { RegistrationSubject } from '../domain/registration.js';
import type { DatabaseDeadline } from './database-deadline.js';

export interface CoreSession {
  readonly customerKey: string;
  readonly delegateReferenceId: string;
  readonly expiresAt: Date;
}

export interface CoreCallContext {
  /** Propagated to the core as `X-Request-Id`. */
  readonly requestId: string;
  /** The platform client the call is made for: for the audit log, never sent to the core. */
  readonly clientId?: string | undefined;
  /** The institution whose core is called (docs/behaviour.md#default-institution); `default` when absent. */
  readonly institution?: string;
  /**
   * The request's time for the database, for the use case's own reads and writes around the
   * core call (`database-deadline.ts`); the core never sees it, and time at the core does not count.
   */
  readonly deadline?: DatabaseDeadline | undefined;
}

/** One page of an account's transactions asked of the core (docs/core-protocol.md, transactions). */
export interface TransactionPageRequest {
  /** An account `id` as the core lists it in the session's accounts. */
  readonly accountId: string;
  /** Both days inclusive, `YYYY-MM-DD`. */
  readonly fromDate: string;
  readonly toDate: string;
  readonly status: StatusFilter;
  /** At most this many transactions, 1 to 500. */
  readonly limit: number;
  /** The core's own cursor from the previous page; absent for the first page. */
  readonly cursor?: string | undefined;
}

/** A page of transactions, newest first, and the core's cursor of the next page (null: the last page). */
export interface TransactionPage {
  readonly transactions: readonly TransactionRecord[];
  readonly nextCursor: string | null;
}

export interface CoreConnector {
  /** Throws {@link CustomerNotRecognised} when the core does not know the subject. */
  /** `subject` is a validated, normalised registration subject. */
  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession>;
  /** Throws {@link SessionRejected} when the core refuses the delegate reference ID. */
  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]>;
  /**
   * One page of an account of the session's customer. Throws {@link SessionRejected} when the
   * core refuses the delegate reference ID, {@link AccountNotFound} when the account is not the
   * session's customer's, {@link TransactionsNotSupported} when the core does not offer the call.
   * Optional: a transport without it does not offer transactions.
   */
  listTransactions?(
    delegateReferenceId: string,
    request: TransactionPageRequest,
    context: CoreCallContext,
  ): Promise<TransactionPage>;
  /**
   * A cheap readiness check (`/readyz`): resolves when the core answers, throws a
   * {@link CoreError} when it cannot be reached. Optional: a connector without it
   * is taken as always reachable.
   */
  ping?(context: CoreCallContext): Promise<void>;
  /**
   * Ends the core session of `delegateReferenceId` (`DELETE /v1/sessions`), when a
   * platform deregisters its customer. Resolves too when the core does not offer the
   * call (404/405/501) or no longer knows the session: either way it is over for us.
   * Throws a {@link CoreError} when the core cannot be reached. Optional.
   */
  endSession?(delegateReferenceId: string, context: CoreCallContext): Promise<void>;
  close(): Promise<void>;
}

/**
 * Each institution's core, guarded (the institution registry): a use case asks for
 * the core of its call's institution. Throws {@link InstitutionUnavailable} when the
 * institution is disabled or unknown.
 */
export interface InstitutionCores {
  /** `deadline`: the calling request's, should the institutions have to be read again. */
  coreFor(institution: string, deadline?: DatabaseDeadline): Promise<CoreConnector>;
}

/** A failure reported by, or on the way to, the core. */
export abstract class CoreError extends Error {
  /** Whether repeating the same call cannot do harm (nothing was changed at the core). */
  abstract readonly retrySafe: boolean;
}

/** The core does not recognise the customer (demographics or customer key). */
export class CustomerNotRecognised extends CoreError {
  readonly retrySafe = true;
  constructor() {
    super('the core does not recognise the customer');
  }
}

/**
 * The institution does not take registrations by demographics (Form A): its core is set to
 * register customers by key only. The platform is told so (400), not "not recognised".
 */
export class DemographicsNotAccepted extends CoreError {
  readonly retrySafe = true;
  constructor() {
    super('this institution registers customers by customer key only: demographics are not accepted');
  }
}

/** The core refused a delegate reference ID (unknown, expired or revoked there). */
export class SessionRejected extends CoreError {
  readonly retrySafe = true;
  /**
   * `locally`: the connector refused the ID itself, without asking the core (one that seals its
   * own session handles knows a forged handle without a call), so it says nothing of the core.
   */
  constructor(readonly where: 'core' | 'locally' = 'core') {
    super(
      where === 'core'
        ? 'the core rejected the delegate reference ID'
        : 'the delegate reference ID was rejected before any call to the core',
    );
  }
}

/** The account asked for is not one of the session's customer's accounts at the core. */
export class AccountNotFound extends CoreError {
  readonly retrySafe = true;
  constructor() {
    super("the account is not one of the session's customer's accounts");
  }
}

/** The core does not offer the call (it answered 404 to the path): nothing was done there. */
export class TransactionsNotSupported extends CoreError {
  readonly retrySafe = true;
  constructor(readonly reason: string) {
    super(`the core does not offer transactions: ${reason}`);
  }
}

/** The core could not be reached, timed out, or answered 5xx. */
export class CoreUnavailable extends CoreError {
  constructor(
    readonly reason: string,
    readonly retrySafe: boolean,
  ) {
    super(`core unavailable: ${reason}`);
  }
}

/**
 * The core refused the call for now (429, RFC 6585 §4): it did nothing, so the call is
 * safe to repeat, later. The platform is told to come back after
 * `retryAfterSeconds` (503 with `Retry-After`, docs/behaviour.md#upstream-failures).
 */
export class CoreBusy extends CoreError {
  readonly retrySafe = true;
  constructor(readonly retryAfterSeconds: number) {
    super(`the core asked to slow down (429): calls refused for ${retryAfterSeconds} s`);
  }
}

/** The core answered something that does not follow the protocol. */
export class CoreProtocolError extends CoreError {
  constructor(
    readonly reason: string,
    readonly retrySafe: boolean,
  ) {
    super(`core protocol error: ${reason}`);
  }
}

/**
 * The institution is disabled (or unknown to this process): its core is not called
 * at all, and its clients are told the service is unavailable (503,
 * docs/behaviour.md#disabled-institutions).
 */
export class InstitutionUnavailable extends CoreError {
  readonly retrySafe = true;
  constructor(readonly institution: string) {
    super(`institution ${institution} is disabled or unknown`);
  }
}

/**
 * The core circuit breaker is open: recent calls failed, so this one was not
 * sent (nothing happened at the core). The platform is told to come back after
 * `retryAfterSeconds` (503 with `Retry-After`, docs/behaviour.md#upstream-failures).
 */
export class CoreCircuitOpen extends CoreError {
  readonly retrySafe = true;
  constructor(readonly retryAfterSeconds: number) {
    super(`core circuit breaker open: calls refused for ${retryAfterSeconds} s`);
  }
}
