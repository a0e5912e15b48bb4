/**
 * What this process drops when the change feed announces a change
 * (docs/behaviour.md#changes-across-processes): a client's cached record, the institutions, the
 * signing keys, a removed customer association (accounts read). When the feed becomes live
 * again, everything: changes may have been missed while it was not.
 *
 * Losing the feed drops nothing: every entry is still bounded by the lifetime it had
 * before the feed existed, the token endpoint stops using the client cache by itself
 * (it asks the feed), and what is held keeps requests working through a database outage.
 */
import type { Logger } from 'pino';
import type { ClientDirectory } from '../app/client-directory.js';
import type { RevokedAccessTokens } from '../app/revoked-access-tokens.js';
import type { InstitutionRegistry } from '../app/institution-registry.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { CachingAssociationStore } from '../adapters/store/caching-association-store.js';
import type { JoseKeyring } from '../adapters/crypto/jose-keyring.js';

export interface ChangeFollowers {
  readonly clients: Pick<ClientDirectory, 'forget' | 'forgetAll'>;
  /** Read as one list: any institution's change drops all of it. */
  readonly institutions: Pick<InstitutionRegistry, 'forgetAll'>;
  /** Loaded together: any key's change drops all of them. */
  readonly keyring: Pick<JoseKeyring, 'forgetAll'>;
  readonly associations: Pick<CachingAssociationStore, 'forget' | 'forgetAll'>;
  /** Access tokens revoked by their client (RFC 7009): added as announced, read again when the feed is back. */
  readonly revokedAccessTokens: Pick<RevokedAccessTokens, 'remember' | 'reload'>;
}

/** Subscribes the caches to the feed; returns the unsubscribe. */
export function followChanges(feed: ChangeFeed, followers: ChangeFollowers, logger: Logger): () => void {
  const { clients, institutions, keyring, associations, revokedAccessTokens } = followers;
  return feed.subscribe((change) => {
    switch (change.kind) {
      case 'client':
        clients.forget(change.id);
        return;
      case 'institution':
        institutions.forgetAll();
        return;
      case 'signing_key':
        keyring.forgetAll();
        return;
      case 'association':
        associations.forget(change.key);
        return;
      case 'access_token_revoked':
        revokedAccessTokens.remember(change.jti, change.exp);
        return;
      case 'feed':
        if (!change.live) {
          logger.warn(
            { err: change.error },
            'change feed lost: until it is back, cached clients are trusted for COREGATE_CLIENT_CACHE_SECONDS, institutions for COREGATE_INSTITUTION_CACHE_SECONDS, associations for COREGATE_ASSOCIATION_CACHE_SECONDS, signing keys for 30 s, and the token endpoint reads every client',
          );
          return;
        }
        for (const cache of [clients, institutions, keyring, associations]) cache.forgetAll();
        revokedAccessTokens
          .reload()
          .catch((error: unknown) =>
            logger.warn(
              { err: error },
              'revoked access tokens: cannot read them again yet; retrying while the feed is down',
            ),
          );
        logger.info(
          'change feed live: cached clients, institutions, signing keys and associations are dropped as soon as they change',
        );
        return;
    }
  });
}
