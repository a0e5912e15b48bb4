/** `GET /core/accounts?customerId=` — the customer's accounts (spec §4.3, CONTRACT §3). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AccountReader } from '../../../app/list-accounts.js';
import { CUSTOMER_ID_PATTERN } from '../../../domain/registration.js';
import { AccountRecordSchema, gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';

export interface AccountsRouteDeps {
  readonly accountReader: AccountReader;
}

const AccountsQuery = Type.Object({
  customerId: Type.String({ pattern: CUSTOMER_ID_PATTERN, description: 'the platform customer ID given at registration' }),
});

export const AccountsResponseSchema = SuccessEnvelope(Type.Array(AccountRecordSchema), 'AccountsResponse');

export async function accountsRoute(app: FastifyInstance, deps: AccountsRouteDeps): Promise<void> {
  app.route<{ Querystring: { customerId: string } }>({
    method: 'GET',
    url: '/core/accounts',
    // A HEAD would read the core (and maybe renew a session) only to drop the body.
    exposeHeadRoute: false,
    schema: {
      summary: "List a registered customer's accounts",
      description: 'Renews the core session transparently when it has expired.',
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      querystring: AccountsQuery,
      response: { 200: AccountsResponseSchema, ...gatewayErrors(400, 401, 403, 404, 429, 502, 503) },
    },
    handler: async (request) => {
      const accounts = await deps.accountReader.list(request.principal!.platform, request.query.customerId, { requestId: request.id });
      return success(accounts);
    },
  });
}
