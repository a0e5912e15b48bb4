/**
 * A {@link CoreConnector} for Apache Fineract's back-office REST API (docs/cores/fineract.md).
 * SKELETON on the integration branch: the connector helper replaces the body; the options
 * interface is fixed so the institution wiring can be written against it.
 */
import type { Logger } from 'pino';
import type { CoreCredentials, FineractSettings } from '../../../domain/institution.js';
import type { Clock } from '../../../ports/clock.js';
import type { SecretSealer } from '../../../ports/secret-sealer.js';
import {
  CoreUnavailable,
  type CoreCallContext,
  type CoreConnector,
  type CoreSession,
} from '../../../ports/core-connector.js';
import type { AccountRecord } from '../../../domain/account.js';
import type { RegistrationSubject } from '../../../domain/registration.js';

export interface FineractCoreConnectorOptions extends FineractSettings {
  /** Fineract's context root, e.g. `https://fineract.bank.example/fineract-provider`. */
  readonly baseUrl: string;
  readonly credentials: CoreCredentials;
  /** The institution the connector serves: bound into every delegate reference ID it makes. */
  readonly institution: string;
  /** Deadline of each call, connection included. */
  readonly timeoutMs: number;
  /** TLS to an `https:` Fineract: a CA to trust instead of the system's (PEM). */
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
  /** coregate's clock: session expiry and "this calendar year". */
  readonly clock: Clock;
  /** Seals the delegate reference IDs the connector makes (AES-256-GCM with the encryption key). */
  readonly sealer: SecretSealer;
  readonly logger?: Logger;
}

export class FineractCoreConnector implements CoreConnector {
  constructor(readonly options: FineractCoreConnectorOptions) {}

  startSession(_subject: RegistrationSubject, _context: CoreCallContext): Promise<CoreSession> {
    return Promise.reject(new CoreUnavailable('the Fineract connector is not built yet', true));
  }

  listAccounts(_delegateReferenceId: string, _context: CoreCallContext): Promise<AccountRecord[]> {
    return Promise.reject(new CoreUnavailable('the Fineract connector is not built yet', true));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
