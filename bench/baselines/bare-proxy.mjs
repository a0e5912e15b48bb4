/**
 * The baseline of the accounts scenarios: a bare pass-through proxy with no
 * authentication, no storage and no checking, in front of the same core
 * simulator coregate uses. node:http in, undici Pool.stream() out.
 * (Registration's baseline is its floor, `registration-floor.mjs`.)
 *
 * - `GET /core/accounts…` → `GET /v1/accounts` with a fixed X-Delegate-Reference-Id,
 *   obtained once at start (`POST /v1/sessions` for CUSTOMER_KEY).
 *
 * Environment: CORE_URL (the simulator), CUSTOMER_KEY (default C-1001),
 * CONNECTIONS (pool size, default 32 like coregate's core connector).
 *
 * The audited-read floor: with `AUDIT=1` and `DATABASE_URL` or `DATA_DIR`
 * (`lib/floor-database.mjs`), each read also stores one row of what was read, with
 * autocommit, once the core has answered and before the answer goes out: the least a
 * server can do that promises "a platform holding an answer can rely on its audit row
 * being committed", as coregate does.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { openFloorDatabase } from '../lib/floor-database.mjs';

const coreUrl = process.env.CORE_URL;
if (!coreUrl) throw new Error('CORE_URL is required');
const customerKey = process.env.CUSTOMER_KEY ?? 'C-1001';
const pool = new Pool(new URL(coreUrl).origin, { connections: Number(process.env.CONNECTIONS ?? 32) });

const started = await pool.request({
  path: '/v1/sessions',
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ customerKey }),
});
const session = await started.body.json();
if (started.statusCode !== 201 || typeof session.delegateReferenceId !== 'string') {
  throw new Error(`could not start a core session: ${started.statusCode}`);
}
const delegateReferenceId = session.delegateReferenceId;

const PASSED_HEADERS = ['content-type', 'content-length'];

const AUDIT_TABLE = `create table if not exists floor_audit (
  id bigserial primary key,
  at timestamptz not null default now(),
  request_id text not null,
  event text not null,
  status integer not null
)`;
const AUDIT_INSERT = 'insert into floor_audit (request_id, event, status) values ($1, $2, $3)';
const audit = process.env.AUDIT === '1' ? await openFloorDatabase() : undefined;
if (audit) await audit.query('floor_audit_table', AUDIT_TABLE, []);

/** The read, its row committed, then the answer (the audited-read floor). */
async function auditedRead(res) {
  const answer = await pool.request({
    path: '/v1/accounts',
    method: 'GET',
    headers: { 'x-delegate-reference-id': delegateReferenceId, accept: 'application/json' },
  });
  const body = Buffer.from(await answer.body.arrayBuffer());
  await audit.query('floor_audit_insert', AUDIT_INSERT, [randomUUID(), 'accounts.read', answer.statusCode]);
  res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

function forward(res) {
  return ({ statusCode, headers }) => {
    const out = {};
    for (const name of PASSED_HEADERS) if (headers[name] !== undefined) out[name] = headers[name];
    res.writeHead(statusCode, out);
    return res;
  };
}

function failed(res) {
  return () => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":"bad_gateway"}');
    } else {
      res.destroy();
    }
  };
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/core/accounts') && audit) {
    req.resume();
    auditedRead(res).catch(failed(res));
  } else if (req.method === 'GET' && req.url.startsWith('/core/accounts')) {
    req.resume();
    pool
      .stream(
        {
          path: '/v1/accounts',
          method: 'GET',
          headers: { 'x-delegate-reference-id': delegateReferenceId, accept: 'application/json' },
        },
        forward(res),
      )
      .catch(failed(res));
  } else {
    req.resume();
    res.writeHead(404).end();
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const what = audit ? `audited-read floor (${audit.kind})` : 'bare proxy';
  process.stderr.write(`${what} listening on http://127.0.0.1:${server.address().port}\n`);
});
process.once('SIGTERM', () => {
  server.close(() =>
    Promise.all([pool.close(), audit?.close()])
      .catch(() => {})
      .then(() => process.exit(0)),
  );
  server.closeAllConnections();
});
