/**
 * Builds the HTTP application from its dependencies, without listening, so that
 * tests can `inject()` requests and `server/main.ts` decides how to serve it.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ClientAuthenticator } from '../app/authenticate-client.js';
import type { ClientDirectory } from '../app/client-directory.js';
import type { TokenIssuer } from '../app/issue-token.js';
import type { AccountReader } from '../app/list-accounts.js';
import type { TransactionReader } from '../app/list-transactions.js';
import type { TransactionSyncer } from '../app/sync-transactions.js';
import { DEFAULT_SCOPE } from '../domain/client.js';
import type { TokenRevoker } from '../app/revoke-token.js';
import type { DpopProofs } from '../app/dpop-proofs.js';
import type { Clock } from '../ports/clock.js';
import { DatabaseDeadline } from '../ports/database-deadline.js';
import type { TokenSigner, TokenVerifier } from '../ports/token-signer.js';
import { requireBearer } from './plugins/bearer-auth.js';
import { installErrorHandling } from './plugins/error-handler.js';
import { installConnectionDraining } from './plugins/connection-draining.js';
import { refuseDuplicateJsonKeys } from './plugins/json-body.js';
import { requireSingleAuthorization } from './plugins/single-authorization.js';
import { clientErrorHandling, serverTimeouts } from './plugins/client-errors.js';
import { accountsRoute } from './routes/core/accounts.js';
import { transactionsRoute } from './routes/core/transactions.js';
import { transactionsSyncRoute } from './routes/core/transactions-sync.js';
import { sessionsRoutes, type SessionsRouteDeps } from './routes/core/sessions.js';
import { revokeRoute } from './routes/oauth/revoke.js';
import { tokenRoute } from './routes/oauth/token.js';
import { wellKnownRoutes, type ClientSecurityMetadata } from './routes/oauth/well-known.js';
import type { ClientCertificateSource } from './client-certificate.js';
import { indexRoute } from './routes/index-route.js';
// Operations: request metrics and /healthz, /readyz, /metrics.
import type { MetricsRecorder } from '../ports/metrics.js';
import { installRequestMetrics } from './plugins/request-metrics.js';
import { opsRoutes, type OpsDeps } from './routes/ops/ops-routes.js';
// Operations: HTTPS and rate limits.
import type { RequestThrottle } from '../app/request-throttle.js';
import { gatewayCallerRateLimit, gatewayRateLimit } from './plugins/rate-limit.js';
import type { TokenEndpointCheckDeps } from './routes/oauth/token-endpoint-checks.js';
// Audit log (docs/behaviour.md#audit-log).
import type { AuditTrail } from '../app/audit-trail.js';
import { installAuditing } from './plugins/audit.js';
import { installRequestLog } from './plugins/request-log.js';
// Tracing (docs/operations.md#observability).
import { installTracing } from './plugins/tracing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's time for the database, one for all of its waits (docs/operations.md#one-database-deadline-per-request);
     * the hooks and use cases that read or write pass it on. Undefined when the app has no `databaseTimeoutMs`.
     */
    databaseDeadline: DatabaseDeadline | undefined;
  }
}

export interface AppDeps {
  readonly logger: FastifyBaseLogger;
  readonly clock: Clock;
  readonly issuer: () => string;
  readonly authenticator: ClientAuthenticator;
  readonly tokenIssuer: TokenIssuer;
  readonly revoker: TokenRevoker;
  /** What the metadata announces of client authentication and bound tokens. */
  readonly clientSecurity: ClientSecurityMetadata;
  readonly keyring: TokenSigner & TokenVerifier;
  readonly clientDirectory: ClientDirectory;
  /** Mutual TLS (RFC 8705): where client certificates come from; without it none is read. */
  readonly clientCertificates?: ClientCertificateSource | undefined;
  /** DPoP (RFC 9449): proofs at the token endpoint and the gateway. */
  readonly dpopProofs: DpopProofs;
  /** Access tokens revoked by their client (RFC 7009): refused at the gateway. */
  readonly revokedAccessTokens: { isRevoked(jti: string): boolean };
  /** Whether an institution is enabled: a disabled one's clients get 503 on `/core/*` (docs/behaviour.md#disabled-institutions). */
  readonly institutions: { isEnabled(id: string, deadline?: DatabaseDeadline): Promise<boolean> };
  /** Believe `X-Forwarded-For` (and later `X-Forwarded-Proto`) from a proxy in front. */
  /** `true`: the immediate peer is the proxy; a list: the proxies' addresses/CIDRs. */
  readonly trustProxy: boolean | readonly string[];
  /** The `/core/*` gateway. */
  readonly gateway: {
    /** `POST`, `GET` and `DELETE /core/sessions`. */
    readonly sessions: Omit<SessionsRouteDeps, 'clock'>;
    readonly accountReader: AccountReader;
    /** `GET /core/transactions` and `GET /core/transactions/sync`. */
    readonly transactionReader: TransactionReader;
    readonly transactionSyncer: TransactionSyncer;
  };
  /** Records request and token metrics (`plugins/request-metrics.ts`). */
  readonly metrics: MetricsRecorder;
  /** Serves `/healthz`, `/readyz` and `/metrics` here; left out when they go to `COREGATE_ADMIN_PORT` (`admin-app.ts`). */
  readonly ops?: OpsDeps;
  // Operations: HTTPS and rate limits (README "HTTPS", "Rate limits").
  /** Serve HTTPS with this certificate (chain) and key, both PEM. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer; readonly clientCa?: Buffer };
  /** Refuse token endpoint requests that did not arrive over HTTPS (`plugins/https-only.ts`). */
  readonly httpsOnly?: boolean;
  /** Rate limits of the gateway and the token endpoints. */
  readonly throttle: RequestThrottle;
  /** Writes the audit log (`plugins/audit.ts`). */
  readonly audit: AuditTrail;
  /** A request, headers and body, must arrive within this (COREGATE_REQUEST_TIMEOUT_MS); else 408. */
  readonly requestTimeoutMs: number;
  /**
   * All of a request's waits for the database together (COREGATE_DB_TIMEOUT_MS): each request
   * gets one {@link DatabaseDeadline} of this.
   */
  readonly databaseTimeoutMs: number;
  /** The package version, for `GET /` and the API document (`config/package-info.ts`). */
  readonly version: string;
  /** A server span per request (`plugins/tracing.ts`); only when the process exports traces. */
  readonly tracing?: boolean;
}

/** Gateway bodies above this size are refused with 413 (docs/behaviour.md#body-limit). */
const BODY_LIMIT = 64 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const requestTimeout = deps.requestTimeoutMs;
  const timeouts = serverTimeouts(requestTimeout);
  const clientErrors = clientErrorHandling(deps.logger);
  const app = Fastify({
    loggerInstance: deps.logger,
    // `true` trusts one hop, the proxy in front (hop 0 is the socket peer): `request.ip` is
    // then the address that proxy saw. Fastify's own `true` would trust every hop and take
    // the leftmost X-Forwarded-For entry, which the caller writes itself (a proxy appends
    // to the header): anyone could pass an IP allow-list by sending it. (Fastify ignores
    // a numeric hop count, hence the function.) A list trusts exactly those proxies.
    trustProxy:
      typeof deps.trustProxy !== 'boolean'
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
    // While closing, requests are refused by plugins/connection-draining.ts, in our error format.
    return503OnClosing: false,
    // One line per request instead of Fastify's two (plugins/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // A slow client (headers, then a body one byte at a time) cannot hold a connection.
    requestTimeout,
    http: timeouts,
    clientErrorHandler: clientErrors.handler,
    // Mutual TLS (RFC 8705): a certificate is asked for, never required — most callers have none, and
    // a self-signed one (self_signed_tls_client_auth) is judged by the client's registration, not the CA.
    ...(deps.tls
      ? {
          https: {
            cert: deps.tls.cert,
            key: deps.tls.key,
            ...timeouts,
            ...(deps.tls.clientCa ? { requestCert: true, rejectUnauthorized: false, ca: deps.tls.clientCa } : {}),
          },
        }
      : {}),
  });
  // Every request carries these fields from its start (null until set): one object shape for
  // all requests keeps V8's property reads monomorphic (fields added later gave each route's
  // requests a shape of their own).
  app.decorateRequest('principal', null);
  app.decorateRequest('accessDenial', null);
  app.decorateRequest('oauthClient', null);
  app.decorateRequest('clientCertificate', undefined);
  app.decorateRequest('auditRecorded', false);
  app.decorateRequest('databaseDeadline', undefined);
  // First of every hook, so that the rest of each phase runs in the request's span.
  if (deps.tracing === true) installTracing(app);
  const databaseTimeoutMs = deps.databaseTimeoutMs;
  // Hooks on the hot path take a callback rather than return a promise: one promise less per hook and request.
  app.addHook('onRequest', (request, reply, done) => {
    // Before any hook that may read the database (client authentication, the bearer check).
    request.databaseDeadline = new DatabaseDeadline(databaseTimeoutMs);
    reply.header('x-request-id', request.id);
    // Here rather than as a second listener of Node's 'request' event, which made every
    // request's event go through a copied array of listeners.
    clientErrors.onRequest(request.raw);
    done();
  });
  installRequestLog(app);
  installErrorHandling(app);
  installConnectionDraining(app);
  requireSingleAuthorization(app, deps.clientCertificates?.header);
  refuseDuplicateJsonKeys(app);
  installRequestMetrics(app, deps.metrics);
  installAuditing(app, deps.audit);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'coregate', version: deps.version, description: API_DESCRIPTION },
      tags: [
        {
          name: 'oauth',
          description: 'OAuth 2.0 authorization server: client credentials and refresh tokens, JWKS, metadata',
        },
        {
          name: 'gateway',
          description: "The core banking gateway: register a platform's customers with the core, read their accounts",
        },
        { name: 'operations', description: 'Probes and metrics for the operator' },
      ],
      components: {
        securitySchemes: {
          clientSecretBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'client_id and client_secret, each form-urlencoded (RFC 6749 §2.3.1)',
          },
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'An access token from `POST /oauth2/token` with the scope `core/main`. A DPoP-bound token (`token_type: DPoP`) is sent as `Authorization: DPoP <token>` with a `DPoP` proof for each request (RFC 9449); a certificate-bound one over the same client certificate (RFC 8705).',
          },
        },
      },
    },
  });

  const tokenEndpointChecks: TokenEndpointCheckDeps = {
    authenticator: deps.authenticator,
    throttle: deps.throttle,
    httpsOnly: deps.httpsOnly === true,
    certificates: deps.clientCertificates && { source: deps.clientCertificates, clock: deps.clock },
  };
  await app.register(tokenRoute, {
    checks: tokenEndpointChecks,
    issuer: deps.tokenIssuer,
    dpop: { proofs: deps.dpopProofs, clock: deps.clock, tokenEndpointUrl: () => `${deps.issuer()}/oauth2/token` },
  });
  await app.register(revokeRoute, { checks: tokenEndpointChecks, revoker: deps.revoker });
  await app.register(wellKnownRoutes, {
    signer: deps.keyring,
    issuer: deps.issuer,
    clientSecurity: deps.clientSecurity,
  });
  await app.register(indexRoute, { version: deps.version });
  const gateway = deps.gateway;
  await app.register(async (core) => {
    gatewayCallerRateLimit(core, deps.throttle);
    core.addHook('onRequest', bearerGuard(deps, DEFAULT_SCOPE));
    core.addHook('onRequest', gatewayRateLimit(deps.throttle));
    await core.register(sessionsRoutes, { ...gateway.sessions, clock: deps.clock });
    await core.register(accountsRoute, { accountReader: gateway.accountReader });
    await core.register(transactionsRoute, { transactionReader: gateway.transactionReader });
    await core.register(transactionsSyncRoute, { transactionSyncer: gateway.transactionSyncer });
  });
  if (deps.ops) await app.register(opsRoutes, deps.ops);
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  // The API reference page: Swagger UI's files come from the installed package, never a CDN.
  await app.register(swaggerUi, API_REFERENCE);
  return app;
}

/** The document's introduction (Markdown, shown at the top of `/docs`). */
const API_DESCRIPTION = [
  'Core banking gateway: an OAuth 2.0 authorization server and a gateway to the core banking system.',
  '1. `POST /oauth2/token` with the client credentials (HTTP Basic) and `grant_type=client_credentials` gives an access token.',
  "2. `POST /core/sessions` with that token registers one of the platform's customers with the core, by demographics or by core customer key.",
  "3. `GET /core/accounts?customerId=…` reads that customer's accounts; coregate keeps the core session fresh by itself.",
  'Gateway answers use the envelope `{name, className, message, data, code}`, errors included.',
].join('\n\n');

/** `GET /docs`: Swagger UI on the document of `GET /openapi.json`. */
const API_REFERENCE = {
  routePrefix: '/docs',
  // Nothing leaves for the internet: no online validator badge.
  // BaseLayout: no top bar (its "Explore" box invites loading any other document).
  uiConfig: {
    validatorUrl: null,
    docExpansion: 'list',
    deepLinking: true,
    tryItOutEnabled: false,
    layout: 'BaseLayout',
  },
  // coregate's name on the page and in the tab, not the plugin's logo.
  theme: { title: 'coregate API reference' },
  logo: {
    type: 'image/svg+xml',
    content: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="32"><text x="0" y="24" font-family="sans-serif" font-size="24" fill="#fff">coregate</text></svg>',
    ),
  },
  staticCSP: true,
  // Only this origin, whatever the page tries: no CDN, no validator. (The plugin's default
  // allows any https: source and upgrades requests to https:, which breaks a plain-HTTP
  // development server on another host.) Swagger UI sets some inline styles.
  transformStaticCSP: () =>
    "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'none'; " +
    "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'",
} as const;

/** The `onRequest` hook guarding gateway routes with a `scope` (see `plugins/bearer-auth.ts`). */
export function bearerGuard(
  deps: Pick<
    AppDeps,
    | 'keyring'
    | 'clientDirectory'
    | 'clock'
    | 'institutions'
    | 'revokedAccessTokens'
    | 'dpopProofs'
    | 'clientCertificates'
  > & { issuer: () => string },
  scope: string,
) {
  return requireBearer(
    {
      verifier: deps.keyring,
      clients: deps.clientDirectory,
      clock: deps.clock,
      institutions: deps.institutions,
      revokedTokens: deps.revokedAccessTokens,
      dpop: { proofs: deps.dpopProofs, issuer: deps.issuer },
      ...(deps.clientCertificates ? { certificates: deps.clientCertificates } : {}),
    },
    scope,
  );
}
