/**
 * `/core/sessions`, one resource: `POST` registers a platform customer with the core
 * (docs/behaviour.md#registration), `GET ?customerId=` reads its state and `DELETE ?customerId=`
 * deregisters it (docs/behaviour.md#customer-lifecycle). Same tenancy as accounts: another
 * platform's customerId gets the very answer of an unknown one.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AssociationDeregistrar } from '../../../app/deregister-association.js';
import type { AssociationReader } from '../../../app/read-association.js';
import type { AssociationRegistrar } from '../../../app/register-association.js';
import { invalidRequest } from '../../../domain/errors.js';
import { CUSTOMER_ID_PATTERN, parseRegistration } from '../../../domain/registration.js';
import type { Clock } from '../../../ports/clock.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';

export interface SessionsRouteDeps {
  readonly registrar: AssociationRegistrar;
  readonly reader: AssociationReader;
  readonly deregistrar: AssociationDeregistrar;
  readonly clock: Clock;
}

const Registration = Type.Object(
  {
    customerId: Type.String({
      description: 'unique customer ID on the platform: 1 to 128 printable characters without spaces',
    }),
  },
  { additionalProperties: false },
);

/**
 * The body as the API document shows it: Form A or Form B
 * (docs/behaviour.md#registration-forms), field names and JSON types. The body is checked once,
 * by `parseRegistration` (domain/registration.ts): it names each bad field as `{path, message}`
 * without repeating a value (ajv's union errors, "must match a schema in anyOf", would name
 * neither), and it trims and normalises, which JSON Schema cannot say — so no length or pattern
 * is declared here. A property test keeps the two in step: this schema admits every body
 * `parseRegistration` accepts.
 */
export const RegistrationRequestSchema = Type.Union(
  [
    Type.Object(
      {
        demographics: Type.Object(
          {
            socialSecurityNumber: Type.String({
              description: 'SSN or TIN: 9 digits, dashes allowed',
              examples: ['123-45-6789'],
            }),
            accountNumber: Type.String({ examples: ['70001234'] }),
            birthDay: Type.String({
              description: 'YYYY-MM-DD or MM/DD/YYYY, a real past date',
              examples: ['1980-04-12'],
            }),
          },
          { additionalProperties: false },
        ),
        registration: Registration,
      },
      { title: 'Form A: demographics', additionalProperties: false },
    ),
    Type.Object(
      {
        customer: Type.Object({ customerKey: Type.String({ examples: ['C-1001'] }) }, { additionalProperties: false }),
        registration: Registration,
      },
      { title: 'Form B: core customer key', additionalProperties: false },
    ),
  ],
  { $id: 'RegistrationRequest' },
);

const RegistrationResponseSchema = SuccessEnvelope(
  Type.Object({ customerId: Type.String(), customerKey: Type.String() }, { additionalProperties: false }),
  'RegistrationResponse',
  'Registered (or already registered for this core customer): the platform customerId and the core customer key',
);

const CustomerQuery = Type.Object({
  customerId: Type.String({
    pattern: CUSTOMER_ID_PATTERN,
    description: 'the platform customer ID given at registration',
  }),
});

const CustomerStateResponseSchema = SuccessEnvelope(
  Type.Object(
    {
      customerId: Type.String(),
      customerKey: Type.String({ description: 'the core customer key' }),
      // A string with an enum (rather than a union of literals): one `type` for generators and the SDK's drift test.
      status: Type.Unsafe<'active' | 'reregistration_required'>({
        type: 'string',
        enum: ['active', 'reregistration_required'],
        description:
          '`reregistration_required`: the core no longer recognises the customer; register it again with `POST /core/sessions`',
      }),
      registeredAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
  'CustomerStateResponse',
  "The registered customer's state",
);

const DeregistrationResponseSchema = SuccessEnvelope(
  Type.Object({ customerId: Type.String() }, { additionalProperties: false }),
  'DeregistrationResponse',
  'Deregistered: the association is gone; a new registration starts afresh',
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function sessionsRoutes(app: FastifyInstance, deps: SessionsRouteDeps): Promise<void> {
  // Fastify parses text/plain by default; a JSON body sent as text/plain would then be
  // refused as "must be a JSON object", hiding the real mistake. Without the parser it
  // is refused for its content type. (This plugin is encapsulated: other routes keep it.)
  app.removeContentTypeParser('text/plain');
  app.route({
    method: 'POST',
    url: '/core/sessions',
    config: { audit: 'registration' },
    schema: {
      summary: 'Register a platform customer with the core banking system',
      description:
        'Starts a core session for the customer (by demographics or by core customer key) and stores the association. ' +
        'Registering the same customerId for the same core customer again is idempotent; for another core customer it is a 409.',
      tags: ['gateway'],
      security: [{ bearerAuth: [] }],
      body: RegistrationRequestSchema,
      response: { 200: RegistrationResponseSchema, ...gatewayErrors(400, 401, 403, 409, 413, 429, 502, 503) },
    },
    // The schema above documents the body; parseRegistration below is its one check.
    validatorCompiler: () => () => true,
    handler: async (request) => {
      // SSN to 9 digits, birthDay to YYYY-MM-DD, values trimmed and checked; each bad
      // field named in a 400.
      const parsed = parseRegistration(request.body, deps.clock.now());
      if (!parsed.ok) throw invalidRequest('invalid registration', { problems: parsed.problems });
      const { institution, platform, clientId } = request.principal!;
      const registered = await deps.registrar.register({ institution, platform }, parsed.registration, {
        requestId: request.id,
        clientId,
        deadline: request.databaseDeadline,
      });
      request.auditRecorded = registered.auditRecorded;
      request.log.info({ platform, customerId: registered.customerId }, 'customer registered');
      return success({ customerId: registered.customerId, customerKey: registered.customerKey });
    },
  });
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
      const state = await deps.reader.read(
        { institution, platform, customerId: request.query.customerId },
        request.databaseDeadline,
      );
      return success({
        ...state,
        registeredAt: state.registeredAt.toISOString(),
        updatedAt: state.updatedAt.toISOString(),
      });
    },
  });
  typed.route({
    method: 'DELETE',
    url: '/core/sessions',
    config: { audit: 'deregistration' },
    schema: {
      summary: 'Deregister a customer',
      description:
        "Deletes the association (a later `GET /core/accounts` is 404; a new registration starts afresh), tells the platform's webhooks " +
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
      const result = await deps.deregistrar.deregister(key, {
        requestId: request.id,
        clientId: request.principal!.clientId,
        deadline: request.databaseDeadline,
      });
      request.auditRecorded = result.auditRecorded;
      request.log.info({ platform, customerId: result.customerId }, 'customer deregistered');
      return success({ customerId: result.customerId });
    },
  });
}
