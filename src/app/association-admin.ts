/**
 * The operator's administration of stored associations (`coregate sessions …`):
 * list a platform's customers and revoke one, so that its customerId must be
 * registered again. Delegate reference IDs are never shown, not even sealed.
 */
import { BadRequest, NotFound, type FieldProblem } from '../domain/errors.js';
import { CUSTOMER_ID_PATTERN } from '../domain/registration.js';
import { DEFAULT_INSTITUTION, isInstitutionId } from '../domain/institution.js';
import type { AssociationStore, AssociationSummary } from '../ports/association-store.js';
import type { AuditTrail } from './audit-trail.js';

export const DEFAULT_ASSOCIATIONS_LIMIT = 1000;
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
  ) {}

  /** The platform's associations by customerId, at one institution or (without it) at all. */
  async list(platform: string, limit: number = DEFAULT_ASSOCIATIONS_LIMIT, institution?: string): Promise<AssociationListing> {
    const problems: FieldProblem[] = [];
    if (platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ASSOCIATIONS_LIMIT) {
      problems.push({ path: 'limit', message: `must be a whole number from 1 to ${MAX_ASSOCIATIONS_LIMIT}` });
    }
    if (institution !== undefined && !isInstitutionId(institution)) problems.push({ path: 'institution', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (problems.length > 0) throw new BadRequest('invalid sessions query', problems);
    const associations = await this.store.listByPlatform(platform, limit + 1, institution);
    return { associations: associations.slice(0, limit), truncated: associations.length > limit };
  }

  /**
   * Deletes the association and audits it as `session.revoked` by the operator. The
   * core session is not ended (the core protocol has no such call): it expires there
   * on its own, and nothing in coregate holds its delegate reference ID any more.
   */
  async revoke(platform: string, customerId: string, institution: string = DEFAULT_INSTITUTION): Promise<void> {
    const problems: FieldProblem[] = [];
    if (platform.length === 0) problems.push({ path: 'platform', message: 'must not be empty' });
    if (!CUSTOMER_ID.test(customerId)) problems.push({ path: 'customer', message: 'must be 1 to 128 printable characters without spaces' });
    if (!isInstitutionId(institution)) problems.push({ path: 'institution', message: 'must be 1 to 64 of a-z, 0-9 and -' });
    if (problems.length > 0) throw new BadRequest('invalid session', problems);
    const deleted = await this.store.delete({ institution, platform, customerId });
    if (!deleted) throw new NotFound(`no registered customer "${customerId}" on platform "${platform}" at institution "${institution}"`);
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
  }
}
