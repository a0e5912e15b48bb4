/** `POST /core/sessions` — register a platform customer with the core (spec §4.2, CONTRACT §3). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { SessionRegistrar } from '../../../app/register-session.js';
import { BadRequest } from '../../../domain/errors.js';
import { parseRegistration } from '../../../domain/registration.js';
import type { Clock } from '../../../ports/clock.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';

export interface SessionsRouteDeps {
  readonly registrar: SessionRegistrar;
  readonly clock: Clock;
}

const Registration = Type.Object({ customerId: Type.String({ description: 'unique customer ID on the platform', maxLength: 128 }) }, { additionalProperties: false });

/** Documentation of the two accepted forms; validation is `parseRegistration`, which names every bad field. */
export const RegistrationRequestSchema = Type.Union(
  [
    Type.Object(
      {
        demographics: Type.Object(
          {
            socialSecurityNumber: Type.String({ description: 'SSN or TIN: 9 digits, dashes allowed', examples: ['123-45-6789'] }),
            accountNumber: Type.String({ examples: ['70001234'] }),
            birthDay: Type.String({ description: 'YYYY-MM-DD or MM/DD/YYYY, a real past date', examples: ['1980-04-12'] }),
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

export const RegistrationResponseSchema = SuccessEnvelope(
  Type.Object({ customerId: Type.String(), customerKey: Type.String() }, { additionalProperties: false }),
  'RegistrationResponse',
  'Registered (or already registered for this core customer): the platform customerId and the core customer key',
);

export async function sessionsRoute(app: FastifyInstance, deps: SessionsRouteDeps): Promise<void> {
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
    // The schema documents the body; parseRegistration validates it, naming each bad
    // field without echoing values that may be personal data.
    validatorCompiler: () => (value: unknown) => ({ value }),
    handler: async (request) => {
      const parsed = parseRegistration(request.body, deps.clock.now());
      if (!parsed.ok) throw new BadRequest('invalid registration', parsed.problems);
      const registered = await deps.registrar.register(request.principal!.platform, parsed.registration, { requestId: request.id });
      request.log.info({ platform: request.principal!.platform, customerId: registered.customerId }, 'customer registered');
      return success(registered);
    },
  });
}
