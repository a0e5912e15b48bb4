/**
 * `POST /core/sessions` (docs/behaviour.md#registration): start a core session for the
 * customer and store the association. Demographics go to the core and nowhere else.
 */
import type { AssociationOwner } from '../domain/association.js';
import { customerIdTaken, customerNotRecognised, invalidRequest } from '../domain/errors.js';
import type { Registration } from '../domain/registration.js';
import type { AssociationStore } from '../ports/association-store.js';
import type { Clock } from '../ports/clock.js';
import {
  CoreProtocolError,
  CustomerNotRecognised,
  DemographicsNotAccepted,
  type CoreCallContext,
  type InstitutionCores,
} from '../ports/core-connector.js';
import { fromCoreFailure } from './core-failures.js';
import { lifecycleEvent } from '../domain/lifecycle-event.js';
import { atInstitution } from './core-call-context.js';
import { changeAuditEvent } from './audit-trail.js';

export interface RegisteredAssociation {
  readonly customerId: string;
  readonly customerKey: string;
  /** The registration's audit row was committed with the association: the HTTP layer writes none. */
  readonly auditRecorded: true;
}

export class AssociationRegistrar {
  constructor(
    private readonly store: AssociationStore,
    private readonly cores: InstitutionCores,
    private readonly clock: Clock,
  ) {}

  /** `owner` is the caller's institution and platform, from its token. */
  async register(
    owner: AssociationOwner,
    registration: Registration,
    callContext: CoreCallContext,
  ): Promise<RegisteredAssociation> {
    const context = atInstitution(callContext, owner.institution);
    const key = { institution: owner.institution, platform: owner.platform, customerId: registration.customerId };
    // Form B's conflict, like Form A's, is found by the statement that stores the association:
    // a read before the core call would cost every registration a database round trip (a large
    // share of its CPU, docs/benchmarks.md), to spare the core one session on the rare refused call.
    let session;
    try {
      const core = await this.cores.coreFor(owner.institution, context.deadline);
      session = await core.startSession(registration.subject, context);
      // A session over before it is stored would be renewed on every call: the core broke the protocol.
      if (session.expiresAt.getTime() <= this.clock.now().getTime())
        throw new CoreProtocolError('the core answered a session that has already expired', false);
    } catch (error) {
      if (error instanceof CustomerNotRecognised) {
        // "Authentication to the third-party system failed" (docs/behaviour.md#registration-outcomes): a 401 about
        // the core, so without a WWW-Authenticate challenge for the caller's token.
        throw customerNotRecognised();
      }
      // The bank's choice, not a failure: the platform learns to register this customer by key.
      if (error instanceof DemographicsNotAccepted)
        throw invalidRequest(error.message, { problems: [{ path: '/demographics', message: error.message }] });
      throw fromCoreFailure(error);
    }
    // `customer.registered` is recorded with the association, only if this call created it;
    // the audit row whenever it is stored, by the same statement.
    const now = this.clock.now();
    const result = await this.store.register(
      key,
      session,
      now,
      [lifecycleEvent('customer.registered', key)],
      changeAuditEvent('session.registered', key, context, now),
      context.deadline,
    );
    if (result.outcome === 'conflict') {
      await this.endOrphanSession(owner.institution, session.delegateReferenceId, context);
      throw customerIdTaken(registration.customerId);
    }
    return {
      customerId: result.association.customerId,
      customerKey: result.association.customerKey,
      auditRecorded: true,
    };
  }

  /**
   * Ends the core session a refused registration started (`DELETE /v1/sessions`), so
   * that no session lives at the core for nobody. Best effort: the answer is the 409
   * either way, and a session the core keeps expires there on its own.
   */
  private async endOrphanSession(
    institution: string,
    delegateReferenceId: string,
    context: CoreCallContext,
  ): Promise<void> {
    try {
      const core = await this.cores.coreFor(institution, context.deadline);
      await core.endSession?.(delegateReferenceId, context);
    } catch {
      // Best effort, as said above.
    }
  }
}
