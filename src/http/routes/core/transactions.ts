/** `GET /core/transactions?customerId=&accountId=` — one page of an account's transactions (docs/behaviour.md#transactions). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TransactionReader } from '../../../app/list-transactions.js';
import { CUSTOMER_ID_PATTERN } from '../../../domain/registration.js';
import {
  ACCOUNT_ID_PATTERN,
  DAY_PATTERN,
  STATUS_FILTERS,
  TransactionRecordSchema,
} from '../../../domain/transaction.js';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_WINDOW_DAYS,
  MAX_PAGE_SIZE,
  MAX_WINDOW_DAYS,
} from '../../../domain/transaction-query.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';
import { forFastSerialization } from '../../schemas/fast-serialization.js';

/** The record as answered: one schema id per answer (fast-json-stringify resolves ids per response). */
export const AnsweredRecord = forFastSerialization(TransactionRecordSchema, { keepId: true });
/** The same without its id, for a second list of records in one answer. */
export const AnsweredRecordWithoutId = forFastSerialization(TransactionRecordSchema, { keepId: false });

export interface TransactionsRouteDeps {
  readonly transactionReader: TransactionReader;
}

/** The two ids every transactions call names, as `/core/accounts` knows them. */
export const CustomerAccountQuery = {
  customerId: Type.String({
    pattern: CUSTOMER_ID_PATTERN,
    description: 'the platform customer ID given at registration',
  }),
  accountId: Type.String({
    pattern: ACCOUNT_ID_PATTERN,
    description: 'an `id` from `GET /core/accounts` of that customer',
  }),
};

/** A cursor as coregate makes them; longer is not one. */
export const CursorParameter = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

const TransactionsQuery = Type.Object({
  ...CustomerAccountQuery,
  fromDate: Type.Optional(
    Type.String({
      pattern: DAY_PATTERN,
      description: `first day, \`YYYY-MM-DD\`; ${DEFAULT_WINDOW_DAYS} days before \`toDate\` when absent; at most ${MAX_WINDOW_DAYS} days before it`,
    }),
  ),
  toDate: Type.Optional(
    Type.String({ pattern: DAY_PATTERN, description: 'last day, `YYYY-MM-DD`; today (UTC) when absent' }),
  ),
  status: Type.Optional(
    Type.Union(
      STATUS_FILTERS.map((status) => Type.Literal(status)),
      { description: '`booked`, `pending` or `both` (the default)' },
    ),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: `page size, ${DEFAULT_PAGE_SIZE} when absent` }),
  ),
  cursor: Type.Optional(
    CursorParameter(
      'the `nextCursor` of the previous page; bound to the customer, the account and the filters (which may then be left out)',
    ),
  ),
});

const TransactionsResponseSchema = SuccessEnvelope(
  Type.Object(
    {
      transactions: Type.Array(AnsweredRecord),
      nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }),
    },
    { additionalProperties: false },
  ),
  'TransactionsResponse',
  'One page of transactions, newest first (pending first, then by booking day and id, descending)',
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function transactionsRoute(app: FastifyInstance, deps: TransactionsRouteDeps): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().route({
    method: 'GET',
    url: '/core/transactions',
    config: { audit: 'transactions' },
    // A HEAD would read the core (and maybe renew a session) only to drop the body.
    exposeHeadRoute: false,
    schema: {
      summary: "List one page of an account's transactions",
      description:
        "Reads the transactions of one of a registered customer's accounts through the stored core session (renewed as for `GET /core/accounts`), " +
        'newest first. Page with `nextCursor` until it is null: a page never repeats or skips a transaction, even when new ones arrive between pages. ' +
        "An unknown customerId, an unknown account and another customer's account are the same 404. A core that does not offer transactions: 501.",
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      querystring: TransactionsQuery,
      response: { 200: TransactionsResponseSchema, ...gatewayErrors(400, 401, 403, 404, 429, 501, 502, 503) },
    },
    handler: async (request) => {
      const { institution, platform, clientId } = request.principal!;
      const { customerId, ...query } = request.query;
      const page = await deps.transactionReader.list({ institution, platform, customerId }, query, {
        requestId: request.id,
        clientId,
        deadline: request.databaseDeadline,
      });
      return success(page);
    },
  });
}
