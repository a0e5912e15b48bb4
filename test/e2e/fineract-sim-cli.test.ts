/**
 * `coregate fineract-sim`: announces its URL, tenant, service user and demo keys; serves
 * Fineract's calls with the service user's Basic credentials and the tenant required;
 * stops when told.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runFineractSim } from '../../src/cli/fineract-sim-command.js';
import { bufferedIo } from '../../src/cli/io.js';

describe('coregate fineract-sim', () => {
  it('serves Fineract’s calls to the printed service user and tenant, and stops on signal', async () => {
    const io = bufferedIo();
    const stop = new AbortController();
    let listening!: (url: string) => void;
    const url = new Promise<string>((resolve) => (listening = resolve));
    const exit = runFineractSim(['--port', '0', '--tenant', 'bank1', '--release', '1.10'], io, {
      signal: stop.signal,
      onListening: listening,
    });
    const base = await url;
    try {
      assert.match(io.stderr, /tenant bank1; service user coregate-reader/);
      assert.match(io.stderr, /printf '%s' 'coregate-reader:stand-in-password' > fineract\.credentials/);
      assert.match(io.stderr, /1\/C-1001, 2\/C-1002/);
      assert.match(io.stderr, /release 1\.10; tenant bank1/);
      assert.equal((await fetch(`${base}/actuator/health`)).status, 200);
      const authorization = `Basic ${Buffer.from('coregate-reader:stand-in-password').toString('base64')}`;
      const refused = await fetch(`${base}/api/v1/clients/1`, { headers: { 'fineract-platform-tenantid': 'bank1' } });
      // A refused user: 401 through the servlet's error page, not Fineract's error body.
      assert.equal(refused.status, 401);
      assert.deepEqual(Object.keys((await refused.json()) as object).sort(), ['error', 'path', 'status', 'timestamp']);
      const client = await fetch(`${base}/api/v1/clients/1`, {
        headers: { authorization, 'fineract-platform-tenantid': 'bank1' },
      });
      assert.equal(client.status, 200);
      const body = (await client.json()) as { dateOfBirth: unknown; externalId: string; active: boolean };
      assert.deepEqual(body.dateOfBirth, [1980, 4, 12]);
      assert.equal(body.externalId, 'C-1001');
      const stats = await fetch(`${new URL(base).origin}/_sim/stats`);
      assert.deepEqual(await stats.json(), {
        requests: 3,
        byCall: { 'GET /actuator/health': 1, 'GET /api/v1/clients/{id}': 2 },
      });
    } finally {
      stop.abort();
    }
    assert.equal(await exit, 0);
    assert.match(io.stderr, /Fineract stand-in stopped \(abort\)/);
  });

  it('refuses a bad flag with usage', async () => {
    const io = bufferedIo();
    assert.equal(await runFineractSim(['--port', 'x'], io), 2);
    assert.equal(await runFineractSim(['--release', '1.8'], io), 2);
    assert.match(io.stderr, /--port/);
  });
});
