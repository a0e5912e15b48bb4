/**
 * `GET /core/sessions?customerId=` and `DELETE /core/sessions?customerId=`
 * (CONTRACT §9): a platform reads its customer's state and deregisters a
 * customer who leaves. Same tenancy as accounts: another platform's customerId
 * gets the very answer of an unknown one.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AssociationDeregistrar } from '../../../app/deregister-association.js';
import type { AssociationReader } from '../../../app/read-association.js';
import { CUSTOMER_ID_PATTERN } from '../../../domain/registration.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';

export interface CustomerLifecycleRouteDeps {
  readonly reader: AssociationReader;
  readonly deregistrar: AssociationDeregistrar;
}

const CustomerQuery = Type.Object({
  customerId: Type.String({ pattern: CUSTOMER_ID_PATTERN, description: 'the platform customer ID given at registration' }),
});

export const CustomerStateResponseSchema = SuccessEnvelope(
  Type.Object(
    {
      customerId: Type.String(),
      customerKey: Type.String({ description: 'the core customer key' }),
      // A string with an enum (rather than a union of literals): one `type` for generators and the SDK's drift test.
      status: Type.Unsafe<'active' | 'reregistration_required'>({
        type: 'string',
        enum: ['active', 'reregistration_required'],
        description: '`reregistration_required`: the core no longer recognises the customer; register it again with `POST /core/sessions`',
      }),
      registeredAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
  'CustomerStateResponse',
  "The registered customer's state",
);

export const DeregistrationResponseSchema = SuccessEnvelope(
  Type.Object({ customerId: Type.String() }, { additionalProperties: false }),
  'DeregistrationResponse',
  'Deregistered: the association is gone; a new registration starts afresh',
);

export async function customerLifecycleRoutes(app: FastifyInstance, deps: CustomerLifecycleRouteDeps): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.route({
    method: 'GET',
    url: '/core/sessions',
    config: { audit: 'customer-read' },
    exposeHeadRoute: false,
    schema: {
      summary: "Read a registered customer's state",
      description:
        "The state of a customer the caller's platform registered: `active`, or `reregistration_required` when the core no longer recognises it. " +
        'Never the core session itself. A customerId the platform did not register is 404, whether or not another platform registered it.',
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      querystring: CustomerQuery,
      response: { 200: CustomerStateResponseSchema, ...gatewayErrors(400, 401, 403, 404, 429, 503) },
    },
    handler: async (request) => {
      const { institution, platform } = request.principal!;
      const state = await deps.reader.read({ institution, platform, customerId: request.query.customerId });
      return success({ ...state, registeredAt: state.registeredAt.toISOString(), updatedAt: state.updatedAt.toISOString() });
    },
  });
  typed.route({
    method: 'DELETE',
    url: '/core/sessions',
    config: { audit: 'deregistration' },
    schema: {
      summary: 'Deregister a customer',
      description:
        'Deletes the association (a later `GET /core/accounts` is 404; a new registration starts afresh), tells the platform\'s webhooks ' +
        '`customer.deregistered` (`reason: "platform_request"`), and asks the core to end the session. A core that does not offer that call, or ' +
        'cannot be reached, does not fail the deregistration: the session then expires at the core on its own.',
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      querystring: CustomerQuery,
      response: { 200: DeregistrationResponseSchema, ...gatewayErrors(400, 401, 403, 404, 429, 503) },
    },
    handler: async (request) => {
      const { institution, platform } = request.principal!;
      const key = { institution, platform, customerId: request.query.customerId };
      const result = await deps.deregistrar.deregister(key, { requestId: request.id, clientId: request.principal!.clientId });
      request.log.info({ platform, customerId: result.customerId }, 'customer deregistered');
      return success(result);
    },
  });
}
