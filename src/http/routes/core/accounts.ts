/** `GET /core/accounts?customerId=` — the customer's accounts (docs/behaviour.md#accounts). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AccountReader } from '../../../app/list-accounts.js';
import { CUSTOMER_ID_PATTERN } from '../../../domain/registration.js';
import { AccountRecordSchema } from '../../../domain/account.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';

export interface AccountsRouteDeps {
  readonly accountReader: AccountReader;
}

const AccountsQuery = Type.Object({
  customerId: Type.String({
    pattern: CUSTOMER_ID_PATTERN,
    description: 'the platform customer ID given at registration',
  }),
});

const AccountsResponseSchema = SuccessEnvelope(
  Type.Array(AccountRecordSchema),
  'AccountsResponse',
  "The customer's accounts; `data: []` when there are none",
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function accountsRoute(app: FastifyInstance, deps: AccountsRouteDeps): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().route({
    method: 'GET',
    url: '/core/accounts',
    config: { audit: 'accounts' },
    // A HEAD would read the core (and maybe renew a session) only to drop the body.
    exposeHeadRoute: false,
    schema: {
      summary: "List a registered customer's accounts",
      description:
        "Reads the accounts of a customer the caller's platform registered with `POST /core/sessions`, by the platform's customerId only: " +
        'the platform never holds the core session. When the core session has expired, or the core no longer accepts it, coregate starts a new one ' +
        'with the stored customer key and retries once; the answer is the same either way. A customerId the platform did not register is 404, ' +
        'whether or not another platform (or the same platform at another institution) registered it.',
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      querystring: AccountsQuery,
      response: { 200: AccountsResponseSchema, ...gatewayErrors(400, 401, 403, 404, 429, 502, 503) },
    },
    handler: async (request) => {
      const { institution, platform } = request.principal!;
      const accounts = await deps.accountReader.list(
        { institution, platform, customerId: request.query.customerId },
        {
          requestId: request.id,
          // Names the client in the audit row of a renewal this call may cause.
          clientId: request.principal!.clientId,
          deadline: request.databaseDeadline,
        },
      );
      return success(accounts);
    },
  });
}
