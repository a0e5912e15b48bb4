/**
 * `DELETE /core/sessions?customerId=` (docs/behaviour.md#deregistration): the platform's customer
 * leaves. The association is deleted with its `customer.deregistered` event and its
 * audit row in one transaction; then the core is asked to end the session (best effort, see
 * `end-core-session.ts`): a core that is down never keeps a customer registered.
 */
import type { AssociationKey } from '../domain/association.js';
import { customerNotRegistered } from '../domain/errors.js';
import { lifecycleEvent } from '../domain/lifecycle-event.js';
import type { AssociationStore } from '../ports/association-store.js';
import type { Clock } from '../ports/clock.js';
import type { CoreCallContext, InstitutionCores } from '../ports/core-connector.js';
import { changeAuditEvent } from './audit-trail.js';
import { endCoreSession, type CoreSessionEndFailure } from './end-core-session.js';

export class AssociationDeregistrar {
  constructor(
    private readonly store: AssociationStore,
    private readonly cores: InstitutionCores,
    private readonly clock: Clock,
    private readonly onCoreFailure?: CoreSessionEndFailure,
  ) {}

  /** `auditRecorded`: the audit row was committed with the deletion, the HTTP layer writes none. */
  async deregister(
    key: AssociationKey,
    context: CoreCallContext,
  ): Promise<{ customerId: string; auditRecorded: true }> {
    const association = await this.store.find(key, context.deadline);
    if (!association) throw customerNotRegistered();
    const now = this.clock.now();
    const deleted = await this.store.delete(
      key,
      {
        events: [lifecycleEvent('customer.deregistered', key, 'platform_request')],
        now,
        audit: changeAuditEvent('session.deregistered', key, context, now),
      },
      context.deadline,
    );
    // Deleted meanwhile by another request: the same answer as if it had never been there.
    if (!deleted) throw customerNotRegistered();
    await endCoreSession(this.cores, association, context, this.onCoreFailure);
    return { customerId: association.customerId, auditRecorded: true };
  }
}
