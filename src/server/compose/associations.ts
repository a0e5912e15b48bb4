/**
 * The customers' associations and their core sessions: registration, reading
 * accounts, renewal, reading and deregistering a customer, `coregate sessions …`.
 */
import { AssociationAdmin } from '../../app/association-admin.js';
import type { AuditTrail } from '../../app/audit-trail.js';
import { CoreSessionKeeper } from '../../app/core-session-keeper.js';
import { AssociationDeregistrar } from '../../app/deregister-association.js';
import type { CoreSessionEndFailure } from '../../app/end-core-session.js';
import type { InstitutionRegistry } from '../../app/institution-registry.js';
import { AccountReader } from '../../app/list-accounts.js';
import { TransactionReader } from '../../app/list-transactions.js';
import { TransactionSyncer } from '../../app/sync-transactions.js';
import { TransactionCursors } from '../../app/transaction-cursors.js';
import { AssociationReader } from '../../app/read-association.js';
import { AssociationRegistrar } from '../../app/register-association.js';
import { observedRenewals } from '../../app/renewal-events.js';
import type { AesGcmSealer } from '../../adapters/crypto/aes-gcm-sealer.js';
import type { HmacCredentialHasher } from '../../adapters/crypto/hmac-credential-hasher.js';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.js';
import { CachingAssociationStore } from '../../adapters/store/caching-association-store.js';
import { SqlAssociationStore } from '../../adapters/store/sql-association-store.js';
import { SqlTransactionSyncStore } from '../../adapters/store/sql-transaction-sync-store.js';
import type { Basics } from './basics.js';

export interface Associations {
  /** The store, cached for the accounts read; the change feed drops removed associations. */
  readonly associations: CachingAssociationStore;
  readonly sessionKeeper: CoreSessionKeeper;
  readonly registrar: AssociationRegistrar;
  readonly accountReader: AccountReader;
  readonly transactionReader: TransactionReader;
  readonly transactionSyncer: TransactionSyncer;
  readonly associationAdmin: AssociationAdmin;
  readonly associationReader: AssociationReader;
  readonly deregistrar: AssociationDeregistrar;
}

export interface AssociationDeps {
  readonly sealer: AesGcmSealer;
  /** Keyed digests: the sync state's digests of transactions. */
  readonly hasher: HmacCredentialHasher;
  readonly institutions: InstitutionRegistry;
  readonly audit: AuditTrail;
  readonly metrics: PrometheusMetrics;
  /** Called after a commit queued webhook deliveries (the store writes the outbox in the change's transaction). */
  readonly onEventsQueued: () => void;
}

export function buildAssociations({ config, logger, clock, database }: Basics, deps: AssociationDeps): Associations {
  const { sealer, hasher, institutions, audit, metrics, onEventsQueued } = deps;
  const associations = new CachingAssociationStore(
    new SqlAssociationStore(database, sealer, { onEventsQueued }),
    clock,
    config.associationCacheSeconds,
  );
  const sessionKeeper = new CoreSessionKeeper(
    associations,
    institutions,
    clock,
    { skewSeconds: config.sessionSkewSeconds, coreTimeoutMs: config.coreTimeoutMs },
    {
      ...observedRenewals(audit, metrics),
      onUnreadableDelegate: (association, context) =>
        logger.warn(
          {
            reqId: context.requestId,
            institution: association.institution,
            platform: association.platform,
          },
          'a stored delegate reference ID could not be opened (encryption key no longer held, or the value is damaged): starting a new core session',
        ),
    },
  );
  // The association is gone either way; the core's session expires there on its own.
  const coreSessionEndFailure: CoreSessionEndFailure = (error, association, context) =>
    logger.warn(
      { err: error, platform: association.platform, customerId: association.customerId, reqId: context.requestId },
      'the core did not end the session of a deregistered customer',
    );
  const sessions = { store: associations, cores: institutions, keeper: sessionKeeper };
  const cursors = new TransactionCursors(sealer);
  return {
    associations,
    sessionKeeper,
    registrar: new AssociationRegistrar(associations, institutions, clock),
    accountReader: new AccountReader(associations, institutions, sessionKeeper),
    transactionReader: new TransactionReader(sessions, cursors, clock),
    transactionSyncer: new TransactionSyncer(sessions, new SqlTransactionSyncStore(database), cursors, hasher, clock),
    associationAdmin: new AssociationAdmin(associations, audit, {
      clock,
      cores: institutions,
      onCoreFailure: coreSessionEndFailure,
    }),
    associationReader: new AssociationReader(associations),
    deregistrar: new AssociationDeregistrar(associations, institutions, clock, coreSessionEndFailure),
  };
}
