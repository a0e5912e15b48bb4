/**
 * 3. Registration: POST /core/sessions with a new customerId and a new customer
 * of the simulator's generated population on every request (Form A
 * demographics), beside the bare proxy forwarding the same start-session call
 * (POST /v1/sessions). Run by `gateway.mjs` (on each storage: scenario 5).
 */
import { checkStartSession, register } from '../lib/checks.mjs';
import { measure } from '../lib/measure.mjs';
import { coreStartSession, coregateRegistration, POPULATION } from '../lib/request-bodies.mjs';

export const name = 'registration';

/** The customer the checks use; the load starts at the other end of the population. */
const CHECK_CUSTOMER = POPULATION.last;

export async function measureProxy(ctx, proxy, peers) {
  await checkStartSession(proxy.url, coreStartSession(CHECK_CUSTOMER), `C-${CHECK_CUSTOMER}`);
  ctx.log('registration: the bare proxy starts sessions; loading');
  const spec = {
    origin: proxy.url,
    path: '/v1/sessions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    generator: { kind: 'core-start-session', first: POPULATION.first, tag: `proxy-${ctx.runId}` },
  };
  const measurement = await measure(ctx, { server: proxy, peers, spec });
  return ctx.results.addRow({ scenario: name, subject: 'bare proxy', baseline: true, measurement, notes: ['POST /v1/sessions passed through'] });
}

export async function measureCoregate(ctx, { coregate, accessToken, kind, baseline, peers }) {
  await register(coregate.url, accessToken, coregateRegistration(CHECK_CUSTOMER, 'check'), `C-${CHECK_CUSTOMER}`);
  ctx.log(`registration: coregate on ${kind} registers customers; loading`);
  const spec = {
    origin: coregate.url,
    path: '/core/sessions',
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    generator: { kind: 'coregate-registration', first: POPULATION.first, tag: `reg-${kind}-${ctx.runId}` },
  };
  const measurement = await measure(ctx, { server: coregate, peers, spec });
  const row = ctx.results.addRow({ scenario: name, variant: kind, subject: 'coregate', measurement, notes: ['Form A, new customerId each request'] });
  if (!baseline) return;
  // Issue 12, "Done when".
  ctx.results.compare(row, baseline, { requestsPerSecond: { name: `registration req/s vs bare proxy (${kind})`, min: 0.3 } });
}
