/**
 * What this process drops when the change feed announces a change (issue 12): a
 * client's cached record (token endpoint) and access rules (bearer check), the
 * institutions, the signing keys, a removed customer association (accounts read).
 * When the feed becomes live again, all of them: changes may have been missed while
 * it was not.
 *
 * Losing the feed drops nothing: every entry is still bounded by the lifetime it had
 * before the feed existed, the token endpoint stops using its cache by itself (it asks
 * the feed), and what is held keeps requests working through a database outage.
 */
import type { Logger } from 'pino';
import type { ChangeDrivenCache } from '../app/change-driven-cache.js';
import type { ClientDirectory } from '../app/client-directory.js';
import type { RevokedAccessTokens } from '../app/revoked-access-tokens.js';
import type { InstitutionRegistry } from '../app/institution-registry.js';
import type { ClientRecord } from '../domain/client.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { CachingAssociationStore } from '../adapters/store/caching-association-store.js';

export interface ChangeFollowers {
  readonly clientRecords: ChangeDrivenCache<ClientRecord>;
  readonly clientDirectory: Pick<ClientDirectory, 'forget' | 'forgetAll'>;
  readonly institutions: Pick<InstitutionRegistry, 'invalidate'>;
  readonly keyring: { forgetKeys(): void };
  readonly associations: Pick<CachingAssociationStore, 'forget' | 'forgetAll'>;
  readonly revokedAccessTokens: Pick<RevokedAccessTokens, 'remember' | 'reload'>;
}

/** Subscribes the caches to the feed; returns the unsubscribe. */
export function followChanges(feed: ChangeFeed, followers: ChangeFollowers, logger: Logger): () => void {
  const { clientRecords, clientDirectory, institutions, keyring, associations, revokedAccessTokens } = followers;
  return feed.subscribe((change) => {
    switch (change.kind) {
      case 'client':
        clientRecords.forget(change.id);
        clientDirectory.forget(change.id);
        return;
      case 'institution':
        institutions.invalidate();
        return;
      case 'signing_key':
        keyring.forgetKeys();
        return;
      case 'association':
        associations.forget(change.key);
        return;
      case 'access_token_revoked':
        revokedAccessTokens.remember(change.jti, change.exp);
        return;
      case 'feed':
        if (!change.live) {
          logger.warn({ err: change.error }, 'change feed lost: until it is back, cached clients are trusted for COREGATE_CLIENT_CACHE_SECONDS, associations for COREGATE_ASSOCIATION_CACHE_SECONDS, and the token endpoint reads every client');
          return;
        }
        clientRecords.forgetAll();
        clientDirectory.forgetAll();
        institutions.invalidate();
        keyring.forgetKeys();
        associations.forgetAll();
        revokedAccessTokens.reload().catch((error: unknown) => logger.warn({ err: error }, 'revoked access tokens: cannot read them again yet; retrying while the feed is down'));
        logger.info('change feed live: cached clients, institutions, signing keys and associations are dropped as soon as they change');
        return;
    }
  });
}
