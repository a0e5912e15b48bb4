/** Retention (docs/behaviour.md#webhook-retention): settled webhook rows and expired refresh tokens. */
import { RetentionPruner } from '../../app/retention-pruner.js';
import type { SqlRefreshTokenStore } from '../../adapters/store/sql-refresh-token-store.js';
import type { SqlWebhookStore } from '../../adapters/store/sql-webhook-store.js';
import type { Basics } from './basics.js';

/** The pruner `serve` starts; commands never do. */
export function buildRetentionPruner(
  { config, logger, clock }: Basics,
  {
    webhookStore,
    refreshTokens,
  }: { readonly webhookStore: SqlWebhookStore; readonly refreshTokens: SqlRefreshTokenStore },
): RetentionPruner {
  return new RetentionPruner(webhookStore, refreshTokens, clock, {
    webhookRetentionDays: config.webhookRetentionDays,
    onPruned: (deleted) => logger.info(deleted, 'retention: deleted settled webhook rows and expired refresh tokens'),
    onError: (error) => logger.error({ err: error }, 'retention pass failed'),
  });
}
