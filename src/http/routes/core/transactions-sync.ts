/** `GET /core/transactions/sync?customerId=&accountId=` — what changed since the last sync (docs/behaviour.md#transaction-sync). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TransactionSyncer } from '../../../app/sync-transactions.js';
import { DEFAULT_PAGE_SIZE, DEFAULT_WINDOW_DAYS, MAX_PAGE_SIZE } from '../../../domain/transaction-query.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';
import { AnsweredRecord, AnsweredRecordWithoutId, CursorParameter, CustomerAccountQuery } from './transactions.js';

export interface TransactionsSyncRouteDeps {
  readonly transactionSyncer: TransactionSyncer;
}

const SyncQuery = Type.Object({
  ...CustomerAccountQuery,
  cursor: Type.Optional(
    CursorParameter(
      `the \`nextCursor\` of the previous sync; without it, every transaction of the last ${DEFAULT_WINDOW_DAYS} days is \`added\``,
    ),
  ),
  count: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `at most this many changes, ${DEFAULT_PAGE_SIZE} when absent`,
    }),
  ),
});

const SyncResponseSchema = SuccessEnvelope(
  Type.Object(
    {
      added: Type.Array(AnsweredRecord, { description: 'transactions not told before (newest first)' }),
      modified: Type.Array(AnsweredRecordWithoutId, {
        description: 'transactions told before whose record changed (a reversal among them)',
      }),
      removed: Type.Array(Type.Object({ id: Type.String() }, { additionalProperties: false }), {
        description:
          'transactions told before that the core no longer lists (a pending one replaced by its booked one)',
      }),
      nextCursor: Type.String({ description: 'send it with the next sync' }),
      hasMore: Type.Boolean({ description: 'more changes wait: sync again at once with `nextCursor`' }),
    },
    { additionalProperties: false },
  ),
  'TransactionsSyncResponse',
  "The changes to an account's transactions since the cursor, as Plaid's `/transactions/sync`",
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function transactionsSyncRoute(app: FastifyInstance, deps: TransactionsSyncRouteDeps): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().route({
    method: 'GET',
    url: '/core/transactions/sync',
    config: { audit: 'transactions_sync' },
    exposeHeadRoute: false,
    schema: {
      summary: "Sync an account's transactions incrementally",
      description:
        `Answers what changed in the last ${DEFAULT_WINDOW_DAYS} days of an account since the cursor: \`added\`, \`modified\` (a reversed transaction) and \`removed\` ` +
        '(a pending transaction replaced by its booked one is removed, the booked one added). While `hasMore`, sync again with `nextCursor`. ' +
        'coregate keeps only transaction ids and keyed digests per account, deleted when the customer is deregistered. ' +
        'A cursor older than the kept state (an answer already used, or a sync started again) is 400 `invalid_cursor`: start again without one.',
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      querystring: SyncQuery,
      response: { 200: SyncResponseSchema, ...gatewayErrors(400, 401, 403, 404, 429, 501, 502, 503) },
    },
    handler: async (request) => {
      const { institution, platform, clientId } = request.principal!;
      const { customerId, ...query } = request.query;
      const answer = await deps.transactionSyncer.sync({ institution, platform, customerId }, query, {
        requestId: request.id,
        clientId,
        deadline: request.databaseDeadline,
      });
      return success(answer);
    },
  });
}
