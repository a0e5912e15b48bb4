/**
 * The floor of registration: the least any durable registration (Form B) can do, as a
 * bare node:http server. It starts a core session at the simulator coregate uses and
 * stores one row, and nothing else: no authentication, no validation beyond reading
 * the two fields, no log, no audit row, no event, no encryption. node:http in, an
 * undici Pool out (like bare-proxy.mjs), one INSERT with autocommit: a statement of its
 * own is its own transaction, committed (durable) before the answer goes out.
 *
 * - `POST /core/sessions` with `{"customer": {"customerKey"}, "registration": {"customerId"}}`
 *   → `POST /v1/sessions` `{"customerKey"}` at the core (docs/core-protocol.md, section 2)
 *   → `INSERT` of the customerId, the customerKey, a SHA-256 digest of the delegate
 *   reference ID and its expiry → `200 {"customerId", "customerKey"}`.
 * - `GET /_floor/registrations/<customerId>` → the stored row without the digest (the
 *   suite's check that a registration was stored), or 404.
 *
 * Storage, of the kind coregate uses in the same run (`lib/floor-database.mjs`): `DATABASE_URL`
 * (the suite passes coregate's default pool size as `POOL_SIZE`) or `DATA_DIR` (PGlite).
 * Environment besides: `CORE_URL` (the simulator), `CONNECTIONS` (core pool, default 32
 * like coregate's core connector).
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { openFloorDatabase } from '../lib/floor-database.mjs';

const coreUrl = process.env.CORE_URL;
if (!coreUrl) throw new Error('CORE_URL is required');
const core = new Pool(new URL(coreUrl).origin, { connections: Number(process.env.CONNECTIONS ?? 32) });

const TABLE = `create table if not exists floor_registrations (
  customer_id text primary key,
  customer_key text not null,
  delegate_digest bytea not null,
  expires_at timestamptz not null
)`;
const INSERT =
  'insert into floor_registrations (customer_id, customer_key, delegate_digest, expires_at) values ($1, $2, $3, $4)';
const SELECT = 'select customer_id, customer_key, expires_at from floor_registrations where customer_id = $1';

const database = await openFloorDatabase();
await database.query('floor_table', TABLE, []);

function answer(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function register(req, res) {
  let customerId;
  let customerKey;
  try {
    const body = await readJson(req);
    customerId = body.registration.customerId;
    customerKey = body.customer.customerKey;
    if (typeof customerId !== 'string' || typeof customerKey !== 'string') throw new TypeError('not strings');
  } catch {
    answer(res, 400, { error: 'bad_request' });
    return;
  }
  const started = await core.request({
    path: '/v1/sessions',
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ customerKey }),
  });
  const session = await started.body.json();
  if ((started.statusCode !== 201 && started.statusCode !== 200) || session.customerKey !== customerKey) {
    answer(res, 502, { error: 'bad_gateway' });
    return;
  }
  const digest = createHash('sha256').update(session.delegateReferenceId).digest();
  await database.query('floor_insert', INSERT, [customerId, customerKey, digest, session.expiresAt]);
  answer(res, 200, { customerId, customerKey });
}

async function stored(res, customerId) {
  const [row] = await database.query('floor_select', SELECT, [customerId]);
  if (!row) answer(res, 404, { error: 'not_found' });
  else
    answer(res, 200, {
      customerId: row.customer_id,
      customerKey: row.customer_key,
      expiresAt: new Date(row.expires_at).toISOString(),
    });
}

function failed(res) {
  return () => {
    if (!res.headersSent) answer(res, 500, { error: 'server_error' });
    else res.destroy();
  };
}

const READ_PREFIX = '/_floor/registrations/';

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/core/sessions') {
    register(req, res).catch(failed(res));
  } else if (req.method === 'GET' && req.url.startsWith(READ_PREFIX)) {
    req.resume();
    stored(res, decodeURIComponent(req.url.slice(READ_PREFIX.length))).catch(failed(res));
  } else {
    req.resume();
    res.writeHead(404).end();
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(
    `registration floor (${database.kind}) listening on http://127.0.0.1:${server.address().port}\n`,
  );
});
process.once('SIGTERM', () => {
  server.close(() =>
    Promise.all([core.close(), database.close()])
      .catch(() => {})
      .then(() => process.exit(0)),
  );
  server.closeAllConnections();
});
