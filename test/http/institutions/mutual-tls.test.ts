/**
 * Mutual TLS to an institution's core, for real (docs/behaviour.md#institutions): a CA, a server
 * certificate for a simulator served over HTTPS that demands a client certificate,
 * and a client certificate, all made with openssl. The core is reached with the
 * certificate and refused without it: 502, with a log line naming the institution,
 * never its API key.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { CoreSimulator } from '../../../src/fakes/core-simulator/core-simulator.js';
import {
  startSimulatorServer,
  type RunningSimulatorServer,
} from '../../../src/fakes/core-simulator/simulator-server.js';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { mutualTlsFiles, type MutualTlsFiles } from '../../support/tls.js';
import {
  ADA,
  assertError,
  assertSuccess,
  BAD_GATEWAY,
  formA,
  getAccounts,
  postSession,
} from '../gateway/gateway-requests.js';

const API_KEY = 'mtls-bank-api-key-never-logged';

describe('institutions: mutual TLS to the core', { skip: QUICKEST_BACKEND.skip }, () => {
  let files: MutualTlsFiles;
  let bank: RunningSimulatorServer;
  let h: Harness;
  const lines: string[] = [];

  before(async () => {
    files = mutualTlsFiles();
    bank = await startSimulatorServer({
      simulator: new CoreSimulator(),
      port: 0,
      apiKey: API_KEY,
      tls: {
        cert: readFileSync(files.serverCertFile),
        key: readFileSync(files.serverKeyFile),
        ca: readFileSync(files.caFile),
      },
    });
    const logger = pino(
      { level: 'info' },
      new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    );
    h = await createHarness(QUICKEST_BACKEND, { logger, env: { COREGATE_CORE_BREAKER_FAILURES: '0' } });
    const common = { coreUrl: bank.url, coreApiKey: API_KEY, coreCaFile: files.caFile, coreTimeoutMs: 2000 };
    await h.services.institutionAdmin.add('bank-mtls', {
      name: 'With certificate',
      ...common,
      coreCertFile: files.clientCertFile,
      coreKeyFile: files.clientKeyFile,
    });
    await h.services.institutionAdmin.add('bank-no-cert', { name: 'Without certificate', ...common });
  });
  after(async () => {
    await h?.close();
    await bank?.close();
    files?.remove();
  });

  it('reaches a core that demands a client certificate with the institution’s certificate', async () => {
    assert.match(bank.url, /^https:/);
    const token = await h.token(await h.client({ platform: 'p', institution: 'bank-mtls' }));
    assertSuccess(await postSession(h, { token }, formA('cust-mtls', ADA)));
    assert.deepEqual(assertSuccess(await getAccounts(h, { token }, 'cust-mtls')), ADA.accounts);
  });

  it('is refused without a client certificate: 502, logged with the institution and never the key', async () => {
    const token = await h.token(await h.client({ platform: 'p', institution: 'bank-no-cert' }));
    lines.length = 0;
    assertError(await postSession(h, { token }, formA('cust-no-cert', ADA)), BAD_GATEWAY);
    const log = lines.join('');
    const named = lines.filter((line) => line.includes('"institution":"bank-no-cert"'));
    assert.ok(
      named.some((line) => line.includes('"statusCode":502') || /core/i.test(line)),
      `a log line names the institution:\n${log}`,
    );
    assert.doesNotMatch(log, new RegExp(API_KEY), 'the API key is never logged');
  });
});
