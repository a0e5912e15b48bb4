/**
 * The OpenAPI document of the public port, generated from the route schemas of the
 * application itself — the same `buildApp` a server runs, in its default
 * configuration (gateway on, operations endpoints on the main port). Nothing is
 * called while generating: every dependency that would serve a request is a
 * stand-in that refuses to. `npm run openapi` writes it to `docs/openapi.json`;
 * a test keeps the committed file equal to it, and to a running server's
 * `GET /openapi.json`.
 */
import { pino } from 'pino';
import { buildApp, type AppDeps } from './app.js';

/** A dependency that is never called while the document is generated; calling it is a bug. */
function notServing<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      // Not a thenable: a stand-in may pass through `await`.
      if (property === 'then' || typeof property === 'symbol') return undefined;
      return () => {
        throw new Error(`${name}.${String(property)} was called while generating the OpenAPI document`);
      };
    },
  });
}

/** The OpenAPI 3.1 document, as `GET /openapi.json` serves it; `version` is the package's (`config/package-info.ts`). */
export async function openApiDocument(version: string): Promise<Record<string, unknown>> {
  const deps: AppDeps = {
    logger: pino({ level: 'silent' }),
    clock: { now: () => new Date() },
    issuer: () => 'https://coregate.example',
    authenticator: notServing('authenticator'),
    tokenIssuer: notServing('tokenIssuer'),
    revoker: notServing('revoker'),
    keyring: notServing('keyring'),
    clientDirectory: notServing('clientDirectory'),
    trustProxy: false,
    gateway: {
      sessions: {
        registrar: notServing('registrar'),
        reader: notServing('associationReader'),
        deregistrar: notServing('deregistrar'),
      },
      accountReader: notServing('accountReader'),
      transactionReader: notServing('transactionReader'),
      transactionSyncer: notServing('transactionSyncer'),
    },
    metrics: notServing('metrics'),
    clientSecurity: notServing('clientSecurity'),
    dpopProofs: notServing('dpopProofs'),
    revokedAccessTokens: notServing('revokedAccessTokens'),
    institutions: notServing('institutions'),
    throttle: notServing('throttle'),
    audit: notServing('audit'),
    requestTimeoutMs: 30_000,
    databaseTimeoutMs: 5_000,
    version,
    ops: { readiness: notServing('readiness'), metrics: notServing('metricsExposition') },
  };
  const app = await buildApp(deps);
  try {
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return response.json<Record<string, unknown>>();
  } finally {
    await app.close();
  }
}

/** The document as committed: two-space JSON and a final newline. */
export function formatOpenApiDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
