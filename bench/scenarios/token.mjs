/**
 * 1. Token issuance: POST /oauth2/token, client_credentials with HTTP Basic, a
 * signed JWT access token — coregate beside oidc-provider configured the same
 * way, both on the server CPU, measured in rounds taken in turn.
 */
import { checkTokenEndpoint, tokenRequest } from '../lib/checks.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { startCoregate, startOidcProvider } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';

export const name = 'token';
export const names = [name];
export const title = '1. Token issuance';

export async function run(ctx) {
  const storage = await freshStorage(ctx, ctx.primaryStorage, 'token');
  const coregate = await startCoregate(ctx, { storage });
  try {
    const client = await coregate.createClient('bench token issuance', 'bench');
    const checked = await checkTokenEndpoint({
      what: 'coregate POST /oauth2/token',
      tokenUrl: `${coregate.url}/oauth2/token`,
      jwksUrl: `${coregate.url}/.well-known/jwks.json`,
      issuer: coregate.url,
      client,
    });
    ctx.log(`token: coregate answers with a verified ${checked.alg} JWT`);
    const provider = await startOidcProvider(ctx, client);
    try {
      const anchor = await checkTokenEndpoint({
        what: 'oidc-provider POST /token',
        tokenUrl: `${provider.url}/token`,
        jwksUrl: `${provider.url}/jwks`,
        issuer: provider.url,
        client,
      });
      ctx.log(`token: oidc-provider answers with a verified ${anchor.alg} JWT; loading both, in turns`);
      // Both serve throughout; their rounds alternate (measure.mjs, measurePair).
      const pair = await measurePair(ctx, {
        subject: { server: coregate, spec: { origin: coregate.url, path: '/oauth2/token', ...tokenRequest(client) } },
        baseline: { server: provider, spec: { origin: provider.url, path: '/token', ...tokenRequest(client) } },
      });
      const subject = ctx.results.addRow({
        scenario: name,
        variant: storage.kind,
        subject: 'coregate',
        measurement: pair.subject,
        notes: [`${checked.alg} JWT`, roundsNote(pair)],
      });
      const baseline = ctx.results.addRow({
        scenario: name,
        subject: 'oidc-provider 8',
        baseline: true,
        measurement: pair.baseline,
        notes: [`${anchor.alg} JWT, in-memory client`],
      });
      // Issue 12, "Done when".
      ctx.results.compare(subject, baseline, {
        requestsPerSecond: { name: 'token req/s vs oidc-provider', min: 1.5 },
        p99: { name: 'token p99 vs oidc-provider', max: 1 },
      });
    } finally {
      await provider.stop();
    }
  } finally {
    await coregate.stop();
  }
}
