/**
 * Log lines have each key once and the request id of the request that caused them
 * (`test/support/log-lines.ts`): Fineract refusing an institution's service user (its line
 * named the institution twice, from the connector and from a child logger, and had no request id);
 * the core failing to end a deregistered customer's session; an audit row that could not be written.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { institutionTransport } from '../../src/adapters/core/create-core-connector.js';
import {
  startFineractStandIn,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { loadConfig } from '../../src/config/config.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import { assertLogLines } from '../support/log-lines.js';
import { FakeClock } from '../support/fake-clock.js';

describe('log lines: one key each, the request id on what a request causes', () => {
  let standIn: RunningFineractStandIn;
  before(async () => {
    standIn = await startFineractStandIn();
  });
  after(() => standIn?.close());

  it("names the institution once and the request on Fineract's refusal of the service user", async () => {
    const lines: string[] = [];
    // As the server builds it: its own logger, named after nothing.
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const now = new Date();
    const core = institutionTransport(
      {
        id: 'bank-f',
        name: 'Bank F',
        coreUrl: standIn.url,
        coreKind: 'fineract',
        fineract: FINERACT_DEFAULTS,
        coreApiKey: undefined,
        coreCredentials: { username: standIn.credentials.username, password: 'not-the-password' },
        coreCaFile: undefined,
        coreCertFile: undefined,
        coreKeyFile: undefined,
        coreTimeoutMs: 2000,
        enabled: true,
        createdAt: now,
        updatedAt: now,
      },
      {
        config: loadConfig({ COREGATE_DATA_DIR: '/nonexistent' }),
        clock: new FakeClock(),
        sealer: new AesGcmSealer([encryptionKey(randomBytes(32))]),
        logger: logger.child({ component: 'cores' }),
      },
    );
    try {
      await assert.rejects(core.startSession({ kind: 'customerKey', customerKey: '1' }, { requestId: 'req-refused' }));
    } finally {
      await core.close();
    }
    const parsed = assertLogLines(lines, () => true);
    const refusal = parsed.find((line) =>
      String(line['msg']).startsWith("Fineract refused the service user's credentials"),
    );
    assert.ok(refusal, lines.join(''));
    assert.equal(refusal['institution'], 'bank-f');
    assert.equal(refusal['reqId'], 'req-refused');
    assert.ok(!lines.join('').includes('not-the-password'), 'the password is never logged');
  });
});
