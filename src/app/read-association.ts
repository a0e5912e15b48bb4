/**
 * `GET /core/sessions?customerId=` (docs/behaviour.md#reading-a-customer): the state of one of the
 * platform's customers. Never the delegate reference ID or the core session's
 * expiry: those are coregate's business, not the platform's.
 */
import type { AssociationKey } from '../domain/association.js';
import { customerNotRegistered } from '../domain/errors.js';
import type { AssociationStore } from '../ports/association-store.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';

type CustomerStatus = 'active' | 'reregistration_required';

export interface CustomerState {
  readonly customerId: string;
  readonly customerKey: string;
  readonly status: CustomerStatus;
  readonly registeredAt: Date;
  readonly updatedAt: Date;
}

export class AssociationReader {
  constructor(private readonly store: AssociationStore) {}

  /** `deadline`: the request's time for the database (`ports/database-deadline.ts`). */
  async read(key: AssociationKey, deadline?: DatabaseDeadline): Promise<CustomerState> {
    const association = await this.store.find(key, deadline);
    if (!association) throw customerNotRegistered();
    return {
      customerId: association.customerId,
      customerKey: association.customerKey,
      status: association.needsReregistration ? 'reregistration_required' : 'active',
      registeredAt: association.createdAt,
      updatedAt: association.updatedAt,
    };
  }
}
