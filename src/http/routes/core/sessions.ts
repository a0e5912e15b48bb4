/** `POST /core/sessions` — register a platform customer with the core (spec §4.2, CONTRACT §3). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance } from 'fastify';
import type { AssociationRegistrar } from '../../../app/register-association.js';
import { invalidRequest } from '../../../domain/errors.js';
import { parseRegistration } from '../../../domain/registration.js';
import type { Clock } from '../../../ports/clock.js';
import { gatewayErrors, success, SuccessEnvelope } from '../../schemas/envelope.js';

export interface SessionsRouteDeps {
  readonly registrar: AssociationRegistrar;
  readonly clock: Clock;
}

const Registration = Type.Object(
  { customerId: Type.String({ description: 'unique customer ID on the platform: 1 to 128 printable characters without spaces' }) },
  { additionalProperties: false },
);

/**
 * The body: Form A or Form B (spec §2.1), as one union. It is the shape — field
 * names and JSON types — and the source of the handler's body type; the rules on
 * the values (SSN digits, a real past birth date, surrounding spaces trimmed from
 * the demographics and the customer key — never from the customerId, an exact
 * identifier refused with spaces around it as on every endpoint) are the
 * normalising step `parseRegistration` (domain/registration.ts), because trimming
 * and the calendar cannot be said in JSON Schema. No length or pattern is declared
 * here for the same reason.
 */
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

export type RegistrationRequest = Static<typeof RegistrationRequestSchema>;

/** The union compiled once; it only decides "is it Form A or B?", see {@link registrationValidator}. */
const registrationShape = TypeCompiler.Compile(RegistrationRequestSchema);

/**
 * The route's body validator: the compiled union admits a body of Form A or B.
 * A refused body is explained by `parseRegistration`, whose field-named
 * `{path, message}` list is the contract's (CONTRACT §3) and never repeats a value
 * (it may be personal data); ajv's union errors ("must match a schema in anyOf")
 * would name neither the field nor the rule. The union refuses only what
 * `parseRegistration` refuses too (wrong JSON types, unknown or missing fields,
 * both forms or none), so its explanation always has a problem to name.
 */
function registrationValidator(today: () => Date) {
  return (body: unknown) => {
    if (registrationShape.Check(body)) return { value: body };
    const parsed = parseRegistration(body, today());
    const problems = parsed.ok ? [{ path: '/', message: 'is invalid' }] : parsed.problems;
    return { error: invalidRequest('invalid registration', { problems }) };
  };
}

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
  app.withTypeProvider<TypeBoxTypeProvider>().route({
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
    validatorCompiler: () => registrationValidator(() => deps.clock.now()),
    handler: async (request) => {
      // The normalising step: SSN to 9 digits, birthDay to YYYY-MM-DD, values trimmed and
      // checked; a bad value is a 400 naming its field, exactly as a bad shape is.
      const parsed = parseRegistration(request.body, deps.clock.now());
      if (!parsed.ok) throw invalidRequest('invalid registration', { problems: parsed.problems });
      const { institution, platform } = request.principal!;
      const registered = await deps.registrar.register({ institution, platform }, parsed.registration, { requestId: request.id });
      request.log.info({ platform, customerId: registered.customerId }, 'customer registered');
      return success(registered);
    },
  });
}
