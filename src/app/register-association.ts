/**
 * `POST /core/sessions` (spec §4.2, CONTRACT §3): start a core session for the
 * customer and store the association. Demographics go to the core and nowhere else.
 */
import { Conflict, NotAuthenticated } from '../domain/errors.js';
import type { Registration } from '../domain/registration.js';
import type { AssociationStore } from '../ports/association-store.js';
import type { Clock } from '../ports/clock.js';
import { CustomerNotRecognised, type CoreCallContext, type CoreConnector } from '../ports/core-connector.js';
import { badGateway } from './core-failures.js';

export interface RegisteredAssociation {
  readonly customerId: string;
  readonly customerKey: string;
}

export class AssociationRegistrar {
  constructor(
    private readonly store: AssociationStore,
    private readonly core: CoreConnector,
    private readonly clock: Clock,
  ) {}

  async register(platform: string, registration: Registration, context: CoreCallContext): Promise<RegisteredAssociation> {
    let session;
    try {
      session = await this.core.startSession(registration.subject, context);
    } catch (error) {
      if (error instanceof CustomerNotRecognised) {
        // "Authentication to the third-party system failed" (spec §7.2): a 401 about
        // the core, so without a WWW-Authenticate challenge for the caller's token.
        throw new NotAuthenticated('the core banking system does not recognise this customer', { reason: 'customer_not_recognised' });
      }
      throw badGateway(error);
    }
    const key = { platform, customerId: registration.customerId };
    const result = await this.store.register(key, session, this.clock.now());
    if (result.outcome === 'conflict') {
      throw new Conflict('this customerId is already registered for another core customer', { customerId: registration.customerId }, { reason: 'customer_id_taken' });
    }
    return { customerId: result.association.customerId, customerKey: result.association.customerKey };
  }
}
