/**
 * 3. Registration: POST /core/sessions in Form B (the core's customer key) with a new
 * customerId and a new customer of the simulator's generated population on every
 * request, beside its floor: a bare server that starts the same core session and
 * inserts one row into a database of the same kind, and does nothing else
 * (`baselines/registration-floor.mjs`). On the primary storage, Form A (demographics)
 * is measured beside the same floor too, without a target. Run by `gateway.mjs`
 * (on each storage: scenario 5).
 */
import { checkRegistrationFloor, register } from '../lib/checks.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { POPULATION, registrationFormA, registrationFormB } from '../lib/request-bodies.mjs';
import { startRegistrationFloor } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';

export const name = 'registration';

/** The customer the checks use; the load starts at the other end of the population. */
const CHECK_CUSTOMER = POPULATION.last;

/** The load of a Form B (or, with `form: 'a'`, Form A) registration on the server at `origin`, customerIds tagged `tag`. */
export function registrationSpec(origin, { accessToken, tag, form = 'b' }) {
  return {
    origin,
    path: '/core/sessions',
    method: 'POST',
    headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), 'content-type': 'application/json' },
    generator: { kind: `registration-form-${form}`, first: POPULATION.first, tag },
  };
}

/** Registers the check customer with coregate in Form B and checks the answer. */
export async function checkCoregateFormB(coregate, accessToken) {
  await register(coregate.url, accessToken, registrationFormB(CHECK_CUSTOMER, 'check-b'), `C-${CHECK_CUSTOMER}`);
}

/** The floor on fresh storage of `kind`, checked: a registration through it answers 200 and leaves its row. */
async function startCheckedFloor(ctx, kind, simulator) {
  const storage = await freshStorage(ctx, kind, `floor_${kind}`);
  const floor = await startRegistrationFloor(ctx, simulator.url, storage);
  try {
    const readRow =
      storage.kind === 'postgres'
        ? async (customerId) => {
            const { rows } = await ctx.pg.with(storage.url, (client) =>
              client.query('select count(*)::int as n from floor_registrations where customer_id = $1', [customerId]),
            );
            return rows[0].n;
          }
        : undefined;
    await checkRegistrationFloor(
      floor.url,
      registrationFormB(CHECK_CUSTOMER, 'check-floor'),
      `C-${CHECK_CUSTOMER}`,
      readRow,
    );
    return floor;
  } catch (error) {
    await floor.stop();
    throw error;
  }
}

const FLOOR_NOTE =
  'the floor: start a core session + one INSERT (autocommit) on the same kind of database; no authentication, validation, log, audit, event or encryption';

export async function measureCoregate(ctx, { coregate, accessToken, kind, peers, simulator }) {
  const floor = await startCheckedFloor(ctx, kind, simulator);
  try {
    await checkCoregateFormB(coregate, accessToken);
    ctx.log(`registration: coregate on ${kind} and its floor register customers (Form B); loading both, in turns`);
    const floorSpec = registrationSpec(floor.url, { tag: `floor-${kind}-${ctx.runId}` });
    const pair = await measurePair(ctx, {
      subject: {
        server: coregate,
        peers,
        spec: registrationSpec(coregate.url, { accessToken, tag: `reg-b-${kind}-${ctx.runId}` }),
      },
      baseline: { server: floor, peers, spec: floorSpec },
    });
    const row = ctx.results.addRow({
      scenario: name,
      variant: `${kind}, Form B`,
      subject: 'coregate',
      measurement: pair.subject,
      notes: ['Form B (customer key), new customerId each request', roundsNote(pair)],
    });
    const floorRow = ctx.results.addRow({
      scenario: name,
      variant: `in turns with ${kind}, Form B`,
      subject: 'registration floor',
      baseline: true,
      measurement: pair.baseline,
      notes: [FLOOR_NOTE],
    });
    ctx.results.compare(row, floorRow, {
      requestsPerSecond: { name: `registration req/s vs its floor (${kind}, Form B)`, min: 0.5 },
      p99: { name: `registration p99 vs its floor (${kind}, Form B)`, max: 2 },
    });
    if (kind !== ctx.primaryStorage) return;
    // Form A: the core finds the customer by demographics; measured against the same floor, reported.
    await register(coregate.url, accessToken, registrationFormA(CHECK_CUSTOMER, 'check-a'), `C-${CHECK_CUSTOMER}`);
    ctx.log(`registration: coregate on ${kind} in Form A beside the same floor, in turns`);
    const pairA = await measurePair(ctx, {
      subject: {
        server: coregate,
        peers,
        spec: registrationSpec(coregate.url, { accessToken, tag: `reg-a-${kind}-${ctx.runId}`, form: 'a' }),
      },
      baseline: { server: floor, peers, spec: floorSpec },
    });
    const rowA = ctx.results.addRow({
      scenario: name,
      variant: `${kind}, Form A`,
      subject: 'coregate',
      measurement: pairA.subject,
      notes: ['Form A (demographics), new customerId each request; no target', roundsNote(pairA)],
    });
    const floorRowA = ctx.results.addRow({
      scenario: name,
      variant: `in turns with ${kind}, Form A`,
      subject: 'registration floor',
      baseline: true,
      measurement: pairA.baseline,
      notes: [`${FLOOR_NOTE} (Form B bodies)`],
    });
    ctx.results.compare(rowA, floorRowA);
  } finally {
    await floor.stop();
  }
}
