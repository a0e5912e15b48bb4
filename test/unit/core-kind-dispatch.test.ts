/**
 * The core kind decides the transport (`adapters/core/create-core-connector.ts`): an institution
 * of kind `fineract` gets a FineractCoreConnector built from its record (context root, service
 * user, tenant and the other settings, its id, its timeout, the sealer and the clock), behind
 * the same guard as the reference protocol: counted under its own label, behind its own breaker.
 * `default` of kind `fineract` is built from COREGATE_CORE_KIND and COREGATE_FINERACT_….
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pino from 'pino';
import {
  createCoreConnector,
  guardCoreConnector,
  institutionCoreFactory,
  institutionTransport,
} from '../../src/adapters/core/create-core-connector.js';
import {
  FineractCoreConnector,
  type FineractCoreConnectorOptions,
} from '../../src/adapters/core/fineract/fineract-core-connector.js';
import { GuardedCoreConnector } from '../../src/adapters/core/guarded-core-connector.js';
import { HttpCoreConnector } from '../../src/adapters/core/http-core-connector.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { loadConfig } from '../../src/config/config.js';
import type { InstitutionRecord } from '../../src/domain/institution.js';
import { CoreCircuitOpen, type CoreConnector } from '../../src/ports/core-connector.js';
import type { MetricsRecorder } from '../../src/ports/metrics.js';
import { FakeClock } from '../support/fake-clock.js';

const logger = pino({ level: 'silent' });
const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);
const clock = new FakeClock(new Date('2026-03-01T12:00:00.000Z'));

/** A refused port: nothing listens on port 1 of the loopback. */
const UNREACHABLE = 'http://127.0.0.1:1/fineract-provider';

const FINERACT_BANK: InstitutionRecord = {
  id: 'bank-f',
  name: 'Bank F',
  coreUrl: UNREACHABLE,
  coreApiKey: undefined,
  coreCaFile: undefined,
  coreCertFile: undefined,
  coreKeyFile: undefined,
  coreTimeoutMs: 700,
  coreKind: 'fineract',
  fineract: {
    tenant: 'bank-f',
    ssnDocumentType: 'National ID',
    customerKey: 'external-id',
    ssnLookup: 'client-search',
    sessionTtlSeconds: 600,
  },
  coreCredentials: { username: 'coregate-ro', password: 'pa:ss' },
  enabled: true,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

function recordingMetrics() {
  const calls: Array<{ operation: string; outcome: string; institution: string | undefined }> = [];
  const states: Array<{ state: string; institution: string | undefined }> = [];
  const metrics = {
    coreCall: (operation: string, outcome: string, _seconds: number, institution?: string) =>
      calls.push({ operation, outcome, institution }),
    circuitState: (state: string, institution?: string) => states.push({ state, institution }),
    circuitRejected: () => {},
  } as unknown as MetricsRecorder;
  return { metrics, calls, states };
}

/** The options the connector was built with (it keeps them as given). */
function optionsOf(core: CoreConnector): FineractCoreConnectorOptions {
  assert.ok(core instanceof FineractCoreConnector, `expected a FineractCoreConnector, got ${core.constructor.name}`);
  return (core as unknown as { options: FineractCoreConnectorOptions }).options;
}

describe('core kind dispatch', () => {
  it('builds a FineractCoreConnector from an institution of kind fineract, with its settings', () => {
    const config = loadConfig({}, '/srv/coregate');
    const options = optionsOf(institutionTransport(FINERACT_BANK, { config, clock, sealer, logger }));
    assert.equal(options.baseUrl, UNREACHABLE);
    assert.deepEqual(options.credentials, { username: 'coregate-ro', password: 'pa:ss' });
    assert.equal(options.tenant, 'bank-f');
    assert.equal(options.ssnDocumentType, 'National ID');
    assert.equal(options.customerKey, 'external-id');
    assert.equal(options.sessionTtlSeconds, 600);
    assert.equal(options.institution, 'bank-f');
    assert.equal(options.timeoutMs, 700);
    assert.equal(options.clock, clock);
    assert.equal(options.sealer, sealer);
  });

  it('keeps the HTTP connector for the reference protocol', () => {
    const config = loadConfig({}, '/srv/coregate');
    const core = institutionTransport(
      { ...FINERACT_BANK, coreKind: 'coregate', fineract: undefined, coreCredentials: undefined },
      { config, clock, sealer, logger },
    );
    assert.ok(core instanceof HttpCoreConnector);
  });

  it('guards a Fineract core like any other: its own metric label and breaker', async () => {
    const config = loadConfig({ COREGATE_CORE_BREAKER_FAILURES: '2', COREGATE_CORE_RETRIES: '0' }, '/srv/coregate');
    const { metrics, calls, states } = recordingMetrics();
    const defaultCore = guardCoreConnector(
      institutionTransport({ ...FINERACT_BANK, coreKind: 'coregate' }, { config, clock, sealer, logger }),
      config,
      metrics,
      logger,
    );
    const factory = institutionCoreFactory({ config, clock, sealer, logger, metrics, defaultCore });
    const core = factory.create(FINERACT_BANK);
    assert.ok(core instanceof GuardedCoreConnector);
    optionsOf(core.transport);
    const context = { requestId: 'req-1', institution: 'bank-f' };
    const subject = { kind: 'customerKey', customerKey: '42' } as const;
    // A core that cannot be reached (or, before it is built, refuses): failures that open the breaker.
    await assert.rejects(core.startSession(subject, context));
    await assert.rejects(core.startSession(subject, context));
    await assert.rejects(core.startSession(subject, context), CoreCircuitOpen);
    assert.ok(calls.length >= 2);
    assert.ok(
      calls.every((call) => call.institution === 'bank-f' && call.outcome === 'unavailable'),
      JSON.stringify(calls),
    );
    assert.deepEqual(states, [{ state: 'open', institution: 'bank-f' }]);
    assert.equal(factory.create({ ...FINERACT_BANK, id: 'default' }), defaultCore, 'default keeps its configured core');
    await core.close();
  });

  it('builds default on Fineract from COREGATE_CORE_KIND and COREGATE_FINERACT_…', () => {
    const config = loadConfig(
      {
        COREGATE_CORE_KIND: 'fineract',
        CORE_URL: UNREACHABLE,
        COREGATE_FINERACT_USERNAME: 'svc',
        COREGATE_FINERACT_PASSWORD: 'secret:with:colons',
        COREGATE_FINERACT_TENANT: 'bank-a',
        COREGATE_CORE_TIMEOUT_MS: '1500',
      },
      '/srv/coregate',
    );
    const { core, simulator } = createCoreConnector({ config, clock, sealer, logger });
    assert.equal(simulator, undefined);
    const options = optionsOf(core);
    assert.equal(options.baseUrl, UNREACHABLE);
    assert.deepEqual(options.credentials, { username: 'svc', password: 'secret:with:colons' });
    assert.equal(options.tenant, 'bank-a');
    assert.equal(options.ssnDocumentType, 'SSN');
    assert.equal(options.customerKey, 'id');
    assert.equal(options.sessionTtlSeconds, 900);
    assert.equal(options.institution, 'default');
    assert.equal(options.timeoutMs, 1500);
    assert.equal(options.sealer, sealer);
  });

  it('refuses to build a Fineract core without its tenant or service user', () => {
    const config = loadConfig({}, '/srv/coregate');
    assert.throws(
      () => institutionTransport({ ...FINERACT_BANK, coreCredentials: undefined }, { config, clock, sealer, logger }),
      /bank-f has no Fineract tenant or service user/,
    );
  });
});
