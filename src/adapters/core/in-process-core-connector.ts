/**
 * A {@link CoreConnector} that calls a {@link CoreSimulator} in the same process:
 * what coregate uses when `CORE_URL` is unset. It goes through the simulator's
 * injected faults and honours a timeout, and it maps failures exactly as the
 * HTTP connector does, so tests can inject faults without a network.
 */
import type { AccountRecord } from '../../domain/account.js';
import {
  CoreUnavailable,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
} from '../../ports/core-connector.js';
import { errorForAnswer, retrySafe, sessionEndedAnyway, type CoreOperation } from './protocol.js';
import { SimulatorError, type CoreSimulator } from '../../fakes/core-simulator/core-simulator.js';
import type { RegistrationSubject } from '../../domain/registration.js';

export interface InProcessCoreConnectorOptions {
  /** How long a call may take (only injected latency can make it slow); 5000 ms by default. */
  readonly timeoutMs?: number;
}

export class InProcessCoreConnector implements CoreConnector {
  private readonly timeoutMs: number;

  constructor(
    readonly simulator: CoreSimulator,
    options: InProcessCoreConnectorOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.call('startSession', () => {
      const session = this.simulator.startSession(subject, context.requestId);
      return {
        customerKey: session.customerKey,
        delegateReferenceId: session.delegateReferenceId,
        expiresAt: new Date(session.expiresAt),
      };
    });
  }

  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    // Copies, so no caller can change the simulator's data.
    return this.call('listAccounts', () =>
      this.simulator.listAccounts(delegateReferenceId, context.requestId).map((record) => ({ ...record })),
    );
  }

  endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    return this.call('endSession', () => {
      try {
        this.simulator.endSession(delegateReferenceId, context.requestId);
      } catch (error) {
        // Already gone at the core: the same outcome as over HTTP (protocol.ts `sessionEndedAnyway`).
        if (!(error instanceof SimulatorError && sessionEndedAnyway(error.status))) throw error;
      }
    });
  }

  /** The simulator is in this process: it is always reachable. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  private async call<T>(operation: CoreOperation, work: () => T): Promise<T> {
    const faults = this.simulator.faults;
    if (faults.latencyMs === 0 && faults.errorRate === 0) return this.settle(operation, work);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      await this.simulator.applyFaults(deadline.signal);
    } catch (error) {
      if (deadline.signal.aborted)
        throw new CoreUnavailable(`no answer within ${this.timeoutMs} ms`, retrySafe(operation, true));
      throw this.mapped(operation, error);
    } finally {
      clearTimeout(timer);
    }
    return this.settle(operation, work);
  }

  private settle<T>(operation: CoreOperation, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw this.mapped(operation, error);
    }
  }

  private mapped(operation: CoreOperation, error: unknown): unknown {
    return error instanceof SimulatorError ? errorForAnswer(operation, error.status, error.code) : error;
  }
}
