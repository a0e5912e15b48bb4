/**
 * A flood of refusals before authentication (a bad bearer token, an unknown
 * client at the token endpoint) writes a bounded number of audit rows — one per source
 * address, event type and reason per minute, with a count — while the metrics count
 * every refusal. One row per request let anyone on the network fill the append-only table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';

const FLOOD = 2_000;
const CONCURRENCY = 100;

interface AggregatedRow {
  readonly event_type: string;
  readonly reason: string | null;
  readonly count: number | null;
  readonly source_ip: string | null;
  readonly client_id: string | null;
  readonly request_id: string | null;
  readonly occurred_at: Date;
}

async function rowsFrom(h: Harness, sourceIp: string): Promise<AggregatedRow[]> {
  return h.services.database.query<AggregatedRow>(
    'select event_type, reason, count, source_ip, client_id, request_id, occurred_at from audit_log where source_ip = $1 order by id',
    [sourceIp],
  );
}

async function metric(h: Harness, series: string): Promise<number> {
  const text = await h.services.metrics.render();
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function flood(
  total: number,
  send: () => Promise<{ statusCode: number }>,
  status: number | readonly number[],
): Promise<void> {
  for (let done = 0; done < total; done += CONCURRENCY) {
    const answers = await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total - done) }, send));
    for (const answer of answers)
      assert.ok(([] as number[]).concat(status).includes(answer.statusCode), `answered ${answer.statusCode}`);
  }
}

for (const backend of BACKENDS) {
  describe(`audit of refusals before authentication under a flood (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(backend);
    });
    after(() => h?.close());

    it(`${FLOOD} invalid-token requests from one address: a handful of rows counting ${FLOOD}, and ${FLOOD} in the metrics`, async () => {
      const address = '198.51.100.7';
      const series = 'coregate_access_denied_total{reason="invalid_token"}';
      const counted = await metric(h, series);
      const started = h.clock.now();
      await flood(
        FLOOD,
        () =>
          h.app.inject({
            method: 'GET',
            url: '/core/accounts?customerId=flood',
            headers: { authorization: 'Bearer abc.def.ghi' },
            remoteAddress: address,
          }),
        401,
      );
      assert.deepEqual(await rowsFrom(h, address), [], 'nothing is written while the minute is being counted');

      h.clock.advance(61);
      h.services.audit.closeDueRefusals();
      await h.services.audit.drain();
      const rows = await rowsFrom(h, address);
      assert.ok(rows.length >= 1 && rows.length <= 3, `a handful of rows, not one per request: ${rows.length}`);
      assert.equal(
        rows.reduce((sum, row) => sum + Number(row.count), 0),
        FLOOD,
        'the counts add up to every refusal',
      );
      for (const row of rows) {
        assert.equal(row.event_type, 'access.denied');
        assert.equal(row.reason, 'invalid_token');
        assert.equal(row.client_id, null);
        assert.equal(row.request_id, null, 'an aggregated row belongs to no single request');
        assert.equal(
          new Date(row.occurred_at).getTime(),
          started.getTime() - (started.getTime() % 60_000),
          'stamped with the start of its minute',
        );
      }
      assert.equal((await metric(h, series)) - counted, FLOOD, 'the metrics count every refusal');
    });

    it('unknown clients at the token endpoint: one row per address and minute, the rest of the addresses apart', async () => {
      const send = (remoteAddress: string) => () =>
        h.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: {
            authorization: `Basic ${Buffer.from('cg_nobodyAAAAAAAAAAAAAAA:nothing').toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: 'grant_type=client_credentials',
          remoteAddress,
        });
      // invalid_client: 401, or 400 where the endpoint answers so.
      await flood(300, send('203.0.113.5'), [400, 401]);
      await flood(5, send('203.0.113.6'), [400, 401]);
      h.clock.advance(60);
      // A refusal in the next minute closes the previous one, even before the timer does.
      await send('203.0.113.5')();
      await h.services.audit.drain();
      const first = await rowsFrom(h, '203.0.113.5');
      assert.deepEqual(
        first.map((row) => [row.event_type, row.reason, row.count]),
        [
          ['token.denied', 'invalid_client', 300],
          ['token.denied', 'invalid_client', 1],
        ],
      );
      assert.deepEqual(
        (await rowsFrom(h, '203.0.113.6')).map((row) => row.count),
        [5],
      );
    });

    it('audit list shows count and sourceIp of an aggregated row', async () => {
      await h.app.inject({ method: 'GET', url: '/core/accounts?customerId=x', remoteAddress: '192.0.2.77' });
      await h.services.audit.drain();
      const [record] = await h.services.auditReader.list({ type: 'access.denied', limit: 1 });
      assert.equal(record?.count, 1);
      assert.equal(record?.sourceIp, '192.0.2.77');
      assert.equal(record?.reason, 'missing_token');
    });
  });
}
