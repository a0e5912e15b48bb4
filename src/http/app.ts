/**
 * Builds the HTTP application from its dependencies, without listening, so that
 * tests can `inject()` requests and `main.ts` decides how to serve it.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ClientAuthenticator } from '../app/authenticate-client.js';
import type { ClientDirectory } from '../app/client-directory.js';
import type { TokenIssuer } from '../app/issue-token.js';
import type { AccountReader } from '../app/list-accounts.js';
import type { SessionRegistrar } from '../app/register-session.js';
import { DEFAULT_SCOPE } from '../domain/client.js';
import type { TokenRevoker } from '../app/revoke-token.js';
import type { Clock } from '../ports/clock.js';
import type { TokenSigner, TokenVerifier } from '../ports/token-signer.js';
import { requireBearer } from './plugins/bearer-auth.js';
import { installErrorHandling } from './plugins/error-handler.js';
import { accountsRoute } from './routes/core/accounts.js';
import { sessionsRoute } from './routes/core/sessions.js';
import { revokeRoute } from './routes/oauth/revoke.js';
import { tokenRoute } from './routes/oauth/token.js';
import { wellKnownRoutes } from './routes/oauth/well-known.js';

export interface AppDeps {
  readonly logger: FastifyBaseLogger;
  readonly clock: Clock;
  readonly issuer: () => string;
  readonly authenticator: ClientAuthenticator;
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
  readonly keyring: TokenSigner & TokenVerifier;
  readonly clientDirectory: ClientDirectory;
  /** Believe `X-Forwarded-For` (and later `X-Forwarded-Proto`) from a proxy in front. */
  /** `true`: the immediate peer is the proxy; a list: the proxies' addresses/CIDRs. */
  readonly trustProxy: boolean | readonly string[];
  /** The `/core/*` gateway; without it only the authorization server is served. */
  readonly gateway?: { readonly registrar: SessionRegistrar; readonly accountReader: AccountReader };
}

/** Gateway bodies above this size are refused with 413 (CONTRACT §3). */
export const BODY_LIMIT = 64 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    // `true` trusts one hop, the proxy in front (hop 0 is the socket peer): `request.ip` is
    // then the address that proxy saw. Fastify's own `true` would trust every hop and take
    // the leftmost X-Forwarded-For entry, which the caller writes itself (a proxy appends
    // to the header): anyone could pass an IP allow-list by sending it. (Fastify ignores
    // a numeric hop count, hence the function.) A list trusts exactly those proxies.
    trustProxy: Array.isArray(deps.trustProxy)
      ? [...deps.trustProxy]
      : deps.trustProxy
        ? (_address: string, hop: number) => hop === 0
        : false,
    bodyLimit: BODY_LIMIT,
    // A caller's request id is kept only if it is short and plain: it ends up in logs.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installErrorHandling(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'coregate', version: '0.1.0', description: 'Core banking gateway: OAuth 2.0 authorization server and core session gateway' },
      components: {
        securitySchemes: {
          clientSecretBasic: { type: 'http', scheme: 'basic', description: 'client_id and client_secret, each form-urlencoded (RFC 6749 §2.3.1)' },
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });

  await app.register(tokenRoute, { authenticator: deps.authenticator, issuer: deps.tokenIssuer });
  await app.register(revokeRoute, { authenticator: deps.authenticator, revoker: deps.revoker });
  await app.register(wellKnownRoutes, { signer: deps.keyring, issuer: deps.issuer });
  const gateway = deps.gateway;
  if (gateway) {
    await app.register(async (core) => {
      core.addHook('onRequest', bearerGuard(deps, DEFAULT_SCOPE));
      await core.register(sessionsRoute, { registrar: gateway.registrar, clock: deps.clock });
      await core.register(accountsRoute, { accountReader: gateway.accountReader });
    });
  }
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/** The `onRequest` hook guarding gateway routes with a `scope` (see `plugins/bearer-auth.ts`). */
export function bearerGuard(deps: Pick<AppDeps, 'keyring' | 'clientDirectory' | 'clock'>, scope: string) {
  return requireBearer({ verifier: deps.keyring, clients: deps.clientDirectory, clock: deps.clock }, scope);
}
