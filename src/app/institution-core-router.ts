/**
 * The core as the use cases see it when there are several banks: each call goes
 * to the core of the institution named in its context (`default` when none), so
 * the use cases need not know how many cores there are.
 */
import { DEFAULT_INSTITUTION } from '../domain/institution.js';
import type { AccountRecord } from '../domain/account.js';
import type { RegistrationSubject } from '../domain/registration.js';
import type { CoreCallContext, CoreConnector, CoreSession } from '../ports/core-connector.js';
import type { InstitutionRegistry } from './institution-registry.js';

export class InstitutionCoreRouter implements CoreConnector {
  constructor(private readonly institutions: Pick<InstitutionRegistry, 'coreFor' | 'close'>) {}

  async startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return (await this.coreOf(context)).startSession(subject, context);
  }

  async listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    return (await this.coreOf(context)).listAccounts(delegateReferenceId, context);
  }

  /** Ends a session at the institution's core; a core without the call ends nothing (the session expires there). */
  async endSession(delegateReferenceId: string, context: CoreCallContext): Promise<void> {
    const core = await this.coreOf(context);
    await core.endSession?.(delegateReferenceId, context);
  }

  async ping(context: CoreCallContext): Promise<void> {
    const core = await this.coreOf(context);
    await core.ping?.(context);
  }

  /** Closes every institution's core. */
  close(): Promise<void> {
    return this.institutions.close();
  }

  private coreOf(context: CoreCallContext): Promise<CoreConnector> {
    return this.institutions.coreFor(context.institution ?? DEFAULT_INSTITUTION);
  }
}
