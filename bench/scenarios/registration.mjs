/**
 * 3. Registration: POST /core/sessions with a new customerId and a new customer
 * of the simulator's generated population on every request (Form A
 * demographics), beside the bare proxy forwarding the same start-session call
 * (POST /v1/sessions). Run by `gateway.mjs` (on each storage: scenario 5).
 */
import { checkStartSession, register } from '../lib/checks.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { coreStartSession, coregateRegistration, POPULATION } from '../lib/request-bodies.mjs';

export const name = 'registration';

/** The customer the checks use; the load starts at the other end of the population. */
const CHECK_CUSTOMER = POPULATION.last;

/** Checks that the bare proxy starts sessions; its figure is taken in turns with each coregate's (`measureCoregate`). */
export async function measureProxy(ctx, proxy) {
  await checkStartSession(proxy.url, coreStartSession(CHECK_CUSTOMER), `C-${CHECK_CUSTOMER}`);
  ctx.log('registration: the bare proxy starts sessions');
  const spec = {
    origin: proxy.url,
    path: '/v1/sessions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    generator: { kind: 'core-start-session', first: POPULATION.first, tag: `proxy-${ctx.runId}` },
  };
  return { proxy, spec };
}

export async function measureCoregate(ctx, { coregate, accessToken, kind, baseline, peers }) {
  if (!baseline) throw new Error('the bare proxy failed its check: nothing to measure coregate against');
  await register(coregate.url, accessToken, coregateRegistration(CHECK_CUSTOMER, 'check'), `C-${CHECK_CUSTOMER}`);
  ctx.log(`registration: coregate on ${kind} registers customers; loading it and the bare proxy, in turns`);
  const spec = {
    origin: coregate.url,
    path: '/core/sessions',
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    generator: { kind: 'coregate-registration', first: POPULATION.first, tag: `reg-${kind}-${ctx.runId}` },
  };
  const pair = await measurePair(ctx, { subject: { server: coregate, peers, spec }, baseline: { server: baseline.proxy, peers, spec: baseline.spec } });
  const row = ctx.results.addRow({ scenario: name, variant: kind, subject: 'coregate', measurement: pair.subject, notes: ['Form A, new customerId each request', roundsNote(pair)] });
  const proxyRow = ctx.results.addRow({ scenario: name, variant: `in turns with ${kind}`, subject: 'bare proxy', baseline: true, measurement: pair.baseline, notes: ['POST /v1/sessions passed through'] });
  // Issue 12, "Done when".
  ctx.results.compare(row, proxyRow, { requestsPerSecond: { name: `registration req/s vs bare proxy (${kind})`, min: 0.3 } });
}
