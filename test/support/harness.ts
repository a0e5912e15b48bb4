/**
 * An application on a chosen backend with a fake clock, for HTTP tests through
 * `app.inject()`. Nothing listens unless a test calls `listen`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { appDepsFrom } from '../../src/server/app-deps.js';
import { createServices, type Services } from '../../src/server/services.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, bearerGuard, type AppDeps } from '../../src/http/app.js';
import type { CoreConnector } from '../../src/ports/core-connector.js';
import type { Backend } from './backends.js';
import { FakeClock } from './fake-clock.js';

export const TEST_ISSUER = 'http://coregate.test';

export interface HarnessOptions {
  readonly env?: Record<string, string>;
  /** Registers extra routes (for example a bearer-protected test route) before the app is ready. */
  readonly routes?: (app: FastifyInstance, services: Services) => Promise<void> | void;
  readonly logger?: Logger;
  /** A core connector to use instead of the built-in simulator (the default, with the harness's fake clock). */
  readonly core?: CoreConnector;
  /** Overrides of the app's dependencies (for example `httpsOnly`), after the harness's own. */
  readonly app?: Partial<AppDeps>;
  /** `false`: no change feed, so caches behave as while the feed is down (time-bounded). */
  readonly listenForChanges?: boolean;
}

export interface Harness {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly clock: FakeClock;
  /** Creates a client; returns its id and secret. */
  client(options?: {
    platform?: string;
    grants?: string[];
    scopes?: string[];
    allowedIps?: string[];
    name?: string;
    institution?: string;
  }): Promise<{ id: string; secret: string; platform: string }>;
  /** A valid access token for the client. */
  token(client: { id: string; secret: string }, scope?: string): Promise<string>;
  close(): Promise<void>;
}

export function basic(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

export async function createHarness(backend: Backend, options: HarnessOptions = {}): Promise<Harness> {
  const opened = await backend.open();
  const dataDir = mkdtempSync(join(tmpdir(), 'coregate-test-'));
  const env: Record<string, string> = {
    COREGATE_DATA_DIR: dataDir,
    COREGATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    COREGATE_ISSUER: TEST_ISSUER,
    LOG_LEVEL: 'silent',
    // Rate limits stay on (their code runs in every suite) but no suite's bursts of
    // requests or failed authentications from one address trip them; test/http/limits sets its own.
    COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '1000000',
    COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '1000000',
    COREGATE_RATE_LIMIT_TOKEN_IP_PER_MINUTE: '1000000',
    COREGATE_RATE_LIMIT_AUTH_FAILURES: '1000000',
    COREGATE_RATE_LIMIT_BEARER_FAILURES_PER_MINUTE: '1000000',
    ...(opened.databaseUrl ? { DATABASE_URL: opened.databaseUrl } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const clock = new FakeClock();
  const logger = options.logger ?? pino({ level: 'silent' });
  const services = await createServices(config, {
    logger,
    database: opened.database,
    clock,
    ...(options.core ? { core: options.core } : {}),
    ...(options.listenForChanges === undefined ? {} : { listenForChanges: options.listenForChanges }),
  });
  const app = await buildApp({ ...appDepsFrom(services), ...options.app });
  await options.routes?.(app, services);
  await app.ready();

  // The allow-list holds at the token endpoint too, so a client's token is requested
  // from an address inside its list (the first address of its first block).
  const tokenAddress = new Map<string, string>();
  return {
    app,
    services,
    clock,
    async client(spec = {}) {
      const { client, secret } = await services.clientRegistry.create({
        name: spec.name ?? 'test client',
        platform: spec.platform,
        grants: spec.grants,
        scopes: spec.scopes,
        allowedIps: spec.allowedIps,
        institution: spec.institution,
      });
      const first = spec.allowedIps?.[0];
      if (first !== undefined) tokenAddress.set(client.id, first.split('/')[0]!);
      return { id: client.id, secret, platform: client.platform };
    },
    async token(client, scope) {
      const from = tokenAddress.get(client.id);
      const response = await app.inject({
        method: 'POST',
        ...(from ? { remoteAddress: from } : {}),
        url: '/oauth2/token',
        headers: {
          authorization: basic(client.id, client.secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`,
      });
      if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
      return response.json<{ access_token: string }>().access_token;
    },
    async close() {
      await app.close();
      // Every step the server takes at shutdown, in its order; the database is closed by it
      // and then, for PostgreSQL, the test database is dropped.
      await services.close();
      await opened.close();
      // The process's tracing ends with its harness: the next one installs its own.
      await services.tracing?.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Registers `GET /test/protected`, guarded like the gateway routes. */
export function protectedTestRoute(scope = 'core/main') {
  return (app: FastifyInstance, services: Services) => {
    app.register(async (scoped) => {
      scoped.addHook('onRequest', bearerGuard({ ...services, issuer: services.issuer.get }, scope));
      scoped.get('/test/protected', async (request) => ({ principal: request.principal }));
    });
  };
}
