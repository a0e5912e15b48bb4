/**
 * Ends an association's core session after the association was deleted
 * (deregistration, operator revoke). Best effort by design: the platform asked
 * coregate to forget the customer, and it has — the association is gone before
 * the core is asked. A core that does not offer the call is fine (the connector
 * resolves); a core that is down or refuses is reported to `onFailure` (logged),
 * and its session simply expires there on its own.
 */
import type { Association } from '../domain/association.js';
import type { CoreCallContext, InstitutionCores } from '../ports/core-connector.js';

/** Told of a core that could not end a session; never given the delegate reference ID. */
export type CoreSessionEndFailure = (
  error: unknown,
  association: Pick<Association, 'platform' | 'customerId'>,
  context: CoreCallContext,
) => void;

export async function endCoreSession(
  cores: InstitutionCores,
  association: Association,
  context: CoreCallContext,
  onFailure: CoreSessionEndFailure | undefined,
): Promise<void> {
  // A delegate reference ID that cannot be opened cannot be named to the core: its session expires there.
  if (association.delegateUnreadable) return;
  try {
    // The core called is always the association's institution's, whoever asked.
    const core = await cores.coreFor(association.institution, context.deadline);
    await core.endSession?.(association.delegateReferenceId, { ...context, institution: association.institution });
  } catch (error) {
    onFailure?.(error, { platform: association.platform, customerId: association.customerId }, context);
  }
}
