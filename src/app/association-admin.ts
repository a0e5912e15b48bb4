/**
 * The operator's administration of stored associations (`coregate sessions …`):
 * list a platform's customers and revoke one, so that its customerId must be
 * registered again. Delegate reference IDs are never shown, not even sealed.
 */
import { invalidRequest, notFound, type FieldProblem } from '../domain/errors.js';
import { CUSTOMER_ID_PATTERN } from '../domain/registration.js';
import { DEFAULT_INSTITUTION, isInstitutionId } from '../domain/institution.js';
import type { AssociationStore, AssociationSummary } from '../ports/association-store.js';
import type { AuditTrail } from './audit-trail.js';
import { lifecycleEvent } from '../domain/lifecycle-event.js';
import type { Clock } from '../ports/clock.js';
import type { InstitutionCores } from '../ports/core-connector.js';
import { endCoreSession, type CoreSessionEndFailure } from './end-core-session.js';

/** What a revoke needs besides the store: to tell webhooks (clock) and to end the core session (cores). */
export interface AssociationAdminOptions {
  readonly clock: Clock;
  readonly cores?: InstitutionCores;
  readonly onCoreFailure?: CoreSessionEndFailure;
}

const DEFAULT_ASSOCIATIONS_LIMIT = 1000;
export const MAX_ASSOCIATIONS_LIMIT = 100_000;

const CUSTOMER_ID = new RegExp(CUSTOMER_ID_PATTERN);

export interface AssociationListing {
  readonly associations: AssociationSummary[];
  /** More associations exist beyond `limit`. */
  readonly truncated: boolean;
}

export class AssociationAdmin {
  constructor(
    private readonly store: AssociationStore,
    private readonly audit: AuditTrail,
    private readonly options?: AssociationAdminOptions,
  ) {}

  /** The platform's associations by customerId, at one institution or (without it) at all. */
  async list(
    platform: string,
    limit: number = DEFAULT_ASSOCIATIONS_LIMIT,
    institution?: string,
  ): Promise<AssociationListing> {
    const problems: FieldProblem[] = [];
    if (platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ASSOCIATIONS_LIMIT) {
      problems.push({ path: 'limit', message: `must be a whole number from 1 to ${MAX_ASSOCIATIONS_LIMIT}` });
    }
    if (institution !== undefined && !isInstitutionId(institution))
      problems.push({ path: 'institution', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (problems.length > 0) throw invalidRequest('invalid sessions query', { problems });
    const associations = await this.store.listByPlatform(platform, limit + 1, institution);
    return { associations: associations.slice(0, limit), truncated: associations.length > limit };
  }

  /** One customer's association (never its delegate reference ID); not found when it is not registered. */
  async show(
    platform: string,
    customerId: string,
    institution: string = DEFAULT_INSTITUTION,
  ): Promise<AssociationSummary> {
    const problems: FieldProblem[] = [];
    if (platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    if (!CUSTOMER_ID.test(customerId))
      problems.push({ path: 'customer', message: 'must be 1 to 128 printable characters without spaces' });
    if (!isInstitutionId(institution))
      problems.push({ path: 'institution', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (problems.length > 0) throw invalidRequest('invalid session', { problems });
    const found = await this.store.find({ institution, platform, customerId });
    if (!found)
      throw notFound(
        `no registered customer "${customerId}" on platform "${platform}" at institution "${institution}"`,
      );
    return {
      institution: found.institution,
      platform: found.platform,
      customerId: found.customerId,
      customerKey: found.customerKey,
      expiresAt: found.expiresAt,
      needsReregistration: found.needsReregistration,
      createdAt: found.createdAt,
      updatedAt: found.updatedAt,
    };
  }

  /**
   * Deletes the association and audits it as `session.revoked` by the operator; the
   * platform's webhooks get `customer.deregistered` (`operator_revoked`), recorded
   * with the deletion. The core is then asked to end the session (best effort: a
   * core without the call, or down, lets it expire there on its own).
   */
  async revoke(platform: string, customerId: string, institution: string = DEFAULT_INSTITUTION): Promise<void> {
    const problems: FieldProblem[] = [];
    if (platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    if (!CUSTOMER_ID.test(customerId))
      problems.push({ path: 'customer', message: 'must be 1 to 128 printable characters without spaces' });
    if (!isInstitutionId(institution))
      problems.push({ path: 'institution', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (problems.length > 0) throw invalidRequest('invalid session', { problems });
    const key = { institution, platform, customerId };
    const found = this.options?.cores ? await this.store.find(key) : undefined;
    const events = this.options
      ? { events: [lifecycleEvent('customer.deregistered', key, 'operator_revoked')], now: this.options.clock.now() }
      : undefined;
    const deleted = await this.store.delete(key, events);
    if (!deleted)
      throw notFound(
        `no registered customer "${customerId}" on platform "${platform}" at institution "${institution}"`,
      );
    await this.audit.record({
      type: 'session.revoked',
      outcome: 'success',
      reason: null,
      actor: 'operator',
      clientId: null,
      platform,
      institution,
      customerId,
      requestId: null,
    });
    if (found && this.options?.cores)
      await endCoreSession(
        this.options.cores,
        found,
        { requestId: `operator-revoke-${this.options.clock.now().getTime().toString(36)}` },
        this.options.onCoreFailure,
      );
  }
}
