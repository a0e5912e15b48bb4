/**
 * Counts and times every call that reaches a {@link CoreConnector}, by operation
 * and outcome. Sits inside the circuit breaker, so calls the breaker refuses are
 * not core calls (they are counted by the breaker's own metric).
 */
import { performance } from 'node:perf_hooks';
import type { AccountRecord } from '../../domain/account.js';
import {
  CoreProtocolError,
  CoreUnavailable,
  CustomerNotRecognised,
  SessionRejected,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
} from '../../ports/core-connector.js';
import type { CoreCallOperation, CoreCallOutcome, MetricsRecorder } from '../../ports/metrics.js';
import type { RegistrationSubject } from '../../domain/registration.js';
import { DEFAULT_INSTITUTION } from '../../domain/institution.js';

function outcomeOf(error: unknown): CoreCallOutcome {
  if (error instanceof CustomerNotRecognised) return 'customer_not_recognised';
  if (error instanceof SessionRejected) return 'session_rejected';
  if (error instanceof CoreUnavailable) return 'unavailable';
  if (error instanceof CoreProtocolError) return 'protocol_error';
  return 'error';
}

export class InstrumentedCoreConnector implements CoreConnector {
  constructor(
    private readonly inner: CoreConnector,
    private readonly metrics: Pick<MetricsRecorder, 'coreCall'>,
    /** The metric label `institution` of this connector's calls. */
    private readonly institution = DEFAULT_INSTITUTION,
  ) {}

  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.timed('startSession', () => this.inner.startSession(subject, context));
  }

  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    return this.timed('listAccounts', () => this.inner.listAccounts(delegateReferenceId, context));
  }

  async endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    const inner = this.inner;
    if (inner.endSession) await this.timed('endSession', () => inner.endSession!(delegateReferenceId, context));
  }

  async ping(context: CoreCallContext): Promise<void> {
    const inner = this.inner;
    if (inner.ping) await this.timed('ping', () => inner.ping!(context));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async timed<T>(operation: CoreCallOperation, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await call();
      this.metrics.coreCall(operation, 'ok', (performance.now() - started) / 1000, this.institution);
      return result;
    } catch (error) {
      this.metrics.coreCall(operation, outcomeOf(error), (performance.now() - started) / 1000, this.institution);
      throw error;
    }
  }
}
