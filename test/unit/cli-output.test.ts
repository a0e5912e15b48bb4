/**
 * The CLI's output rows and rules, each command run in process against a stub admin client:
 * text without `--json`, exactly one JSON document with it; `keys list` with a header and the
 * ACTIVE key; `audit list` with INSTITUTION; `clients rotate-secret` saying in its JSON until
 * when the old secret works; `institutions disable default` only with `--yes`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { auditCommand } from '../../src/cli/audit-commands.js';
import { clientsCommand } from '../../src/cli/clients-commands.js';
import { coreCommand } from '../../src/cli/core-commands.js';
import { institutionsCommand } from '../../src/cli/institutions-commands.js';
import { bufferedIo } from '../../src/cli/io.js';
import { keysCommand } from '../../src/cli/keys-commands.js';
import { migrateCommand } from '../../src/cli/migrate-command.js';
import { runProgram, table, type AdminContext } from '../../src/cli/program.js';
import { sessionsCommand } from '../../src/cli/sessions-commands.js';
import { webhooksCommand } from '../../src/cli/webhooks-commands.js';
import type { AdminOperationName, AdminOperations, ClientView } from '../../src/server/admin-operations.js';
import type { InstitutionView } from '../../src/server/institution-operations.js';

type Results = { [N in AdminOperationName]?: AdminOperations[N]['result'] };

const CLIENT: ClientView = {
  id: 'cg_4fJq0nXbZl2mYtR8pW1s',
  name: 'Acme web',
  platform: 'acme',
  institution: 'default',
  scopes: ['core/main'],
  grants: ['client_credentials'],
  allowedIps: [],
  enabled: true,
  createdAt: '2026-03-01T10:00:00.000Z',
  secretRotatedAt: '2026-03-01T12:00:00.000Z',
  authMethod: 'client_secret_basic',
  requireBoundTokens: false,
  tlsSubjectDn: null,
  jwksKids: null,
};

const INSTITUTION: InstitutionView = {
  id: 'default',
  name: 'Default',
  coreUrl: null,
  enabled: false,
  hasApiKey: false,
  coreKind: 'coregate',
  fineract: null,
  hasCredentials: false,
  coreTimeoutMs: 5000,
  coreCaFile: null,
  coreCertFile: null,
  coreKeyFile: null,
  coreSource: 'config',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
};

const RESULTS: Results = {
  'clients.create': { client: CLIENT, secret: 'cgs_secret' },
  'clients.list': [CLIENT],
  'clients.show': CLIENT,
  'clients.update': CLIENT,
  'clients.set-enabled': CLIENT,
  'clients.rotate-secret': { client: CLIENT, secret: 'cgs_new', previousSecretUntil: null },
  'clients.delete': { client_id: CLIENT.id, deleted: true },
  'keys.rotate': { kid: 'k2', previousKeysPublishedUntil: '2026-03-01T13:00:00.000Z' },
  'keys.list': {
    keys: [
      { kid: 'k1', alg: 'EdDSA', crv: 'Ed25519', kty: 'OKP', x: 'x1' },
      { kid: 'k2', alg: 'EdDSA', crv: 'Ed25519', kty: 'OKP', x: 'x2' },
    ],
    activeKid: 'k2',
    dates: [],
  },
  'keys.revoke': { kid: 'k1', revoked: true, rotatedTo: null },
  migrate: { applied: [], current: 9 },
  'audit.list': [
    {
      id: '1',
      occurredAt: '2026-03-01T12:00:00.000Z',
      type: 'session.registered',
      outcome: 'success',
      reason: null,
      actor: 'client',
      clientId: CLIENT.id,
      platform: 'acme',
      institution: 'bank-b',
      customerId: 'ada',
      requestId: 'req-1',
    },
  ],
  'associations.list': {
    associations: [
      {
        institution: 'default',
        customerId: 'ada',
        customerKey: 'C-1001',
        expiresAt: '2026-03-01T13:00:00.000Z',
        needsReregistration: false,
        createdAt: '2026-03-01T12:00:00.000Z',
        updatedAt: '2026-03-01T12:00:00.000Z',
      },
    ],
    truncated: false,
  },
  'associations.revoke': { platform: 'acme', customerId: 'ada', institution: 'default', revoked: true },
  'institutions.add': INSTITUTION,
  'institutions.update': INSTITUTION,
  'institutions.list': [INSTITUTION],
  'institutions.show': INSTITUTION,
  'institutions.set-enabled': INSTITUTION,
  'core.check': {
    ok: true,
    checks: [
      { name: 'readiness', ok: true, detail: 'the core answered its readiness call' },
      {
        name: 'forged_session_rejected',
        ok: true,
        detail: 'a delegate reference ID the core never issued was rejected',
      },
    ],
  },
  'webhooks.add': {
    id: 'wh_1',
    platform: 'acme',
    url: 'https://hooks.acme.example/',
    events: [],
    secret: 'whsec_c2VjcmV0',
  },
  'webhooks.list': [
    {
      id: 'wh_1',
      platform: 'acme',
      url: 'https://hooks.acme.example/',
      events: [],
      enabled: true,
      disabledReason: null,
      createdAt: '2026-03-01T12:00:00.000Z',
    },
  ],
  'webhooks.remove': { id: 'wh_1', removed: true },
  'webhooks.rotate-secret': { id: 'wh_1', secret: 'whsec_bmV3', previousSecretValidUntil: '2026-03-02T12:00:00.000Z' },
  'webhooks.deliveries': [],
  'webhooks.policy': { production: true, allowPrivate: false, server: true },
};

const GROUPS = [
  clientsCommand,
  keysCommand,
  migrateCommand,
  auditCommand,
  sessionsCommand,
  institutionsCommand,
  coreCommand,
  webhooksCommand,
];

/** Runs `coregate ...argv` with every operation answered from `results`. */
async function run(argv: string[], results: Results = RESULTS) {
  const io = bufferedIo();
  const calls: Array<{ name: AdminOperationName; args: unknown }> = [];
  const context: AdminContext = {
    io,
    exitCode: 0,
    admin: async () => ({
      call: async (name, args) => {
        calls.push({ name, args });
        const result = results[name];
        if (result === undefined) throw new Error(`no stub result for ${name}`);
        return result;
      },
      close: async () => {},
    }),
  };
  const program = new Command('coregate');
  for (const group of GROUPS) program.addCommand(group(context));
  const code = await runProgram(program, argv, context);
  return { code, stdout: io.stdout, stderr: io.stderr, calls };
}

/** stdout holds exactly one JSON document, on one line. */
function oneJsonDocument(stdout: string): unknown {
  assert.equal(stdout.trim().split('\n').length, 1, stdout);
  return JSON.parse(stdout);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const DATA_COMMANDS = [
  ['clients', 'create', '--name', 'Acme web'],
  ['clients', 'list'],
  ['clients', 'show', CLIENT.id],
  ['clients', 'update', CLIENT.id, '--name', 'x'],
  ['clients', 'disable', CLIENT.id],
  ['clients', 'enable', CLIENT.id],
  ['clients', 'rotate-secret', CLIENT.id],
  ['clients', 'delete', CLIENT.id],
  ['keys', 'rotate'],
  ['keys', 'list'],
  ['keys', 'revoke', 'k1'],
  ['migrate'],
  ['audit', 'list'],
  ['sessions', 'list', '--platform', 'acme'],
  ['sessions', 'revoke', '--platform', 'acme', '--customer', 'ada'],
  ['institutions', 'list'],
  ['institutions', 'show', 'default'],
  ['institutions', 'enable', 'default'],
  ['institutions', 'disable', 'default', '--yes'],
  ['core', 'check', '--institution', 'default'],
  ['webhooks', 'add', '--platform', 'acme', '--url', 'https://hooks.acme.example/'],
  ['webhooks', 'list', '--platform', 'acme'],
  ['webhooks', 'remove', 'wh_1'],
  ['webhooks', 'rotate-secret', 'wh_1'],
  ['webhooks', 'deliveries', '--platform', 'acme'],
];

describe('CLI output', () => {
  it('every command prints text without --json and exactly one JSON document with it', async () => {
    for (const argv of DATA_COMMANDS) {
      const json = await run([...argv, '--json']);
      assert.equal(json.code, 0, `${argv.join(' ')}: ${json.stderr}`);
      oneJsonDocument(json.stdout);
      const text = await run(argv);
      assert.equal(text.code, 0, `${argv.join(' ')}: ${text.stderr}`);
      // Deliveries: none, said on stderr.
      if (argv[1] !== 'deliveries')
        assert.ok(
          text.stdout.trim().length > 0 && !isJson(text.stdout),
          `${argv.join(' ')} prints text:\n${text.stdout}`,
        );
    }
  });

  it('clients create prints its fields as text, the secret among them; the JSON keys stay', async () => {
    const text = await run(['clients', 'create', '--name', 'Acme web']);
    assert.match(text.stdout, /^client_id: +cg_4fJq0nXbZl2mYtR8pW1s$/m);
    assert.match(text.stdout, /^client_secret: +cgs_secret$/m);
    assert.match(text.stderr, /Store the client_secret now/);
    const json = oneJsonDocument((await run(['clients', 'create', '--name', 'Acme web', '--json'])).stdout) as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(json).sort(), [
      'allowed_ips',
      'client_id',
      'client_secret',
      'grants',
      'institution',
      'platform',
      'scopes',
    ]);
  });

  it('keys list has a header row and marks the key that signs', async () => {
    const { stdout } = await run(['keys', 'list']);
    assert.equal(
      stdout,
      `${table(
        ['KID', 'ALG', 'CRV', 'ACTIVE'],
        [
          ['k1', 'EdDSA', 'Ed25519', null],
          ['k2', 'EdDSA', 'Ed25519', 'ACTIVE'],
        ],
      )}\n`,
    );
    const json = oneJsonDocument((await run(['keys', 'list', '--json'])).stdout) as {
      keys: Array<{ kid: string }>;
      active_kid: string;
    };
    assert.deepEqual(
      json.keys.map((key) => key.kid),
      ['k1', 'k2'],
    );
    assert.equal(json.active_kid, 'k2');
  });

  it('audit list shows the institution of each event', async () => {
    const [header, row] = (await run(['audit', 'list'])).stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.equal(row![header!.indexOf('INSTITUTION')], 'bank-b');
    assert.deepEqual(header, [
      'OCCURRED_AT',
      'TYPE',
      'OUTCOME',
      'REASON',
      'ACTOR',
      'CLIENT_ID',
      'PLATFORM',
      'INSTITUTION',
      'CUSTOMER_ID',
      'REQUEST_ID',
      'ID',
    ]);
  });

  it('clients rotate-secret --json says until when the previous secret works', async () => {
    const graced = await run(['clients', 'rotate-secret', CLIENT.id, '--grace', '300', '--json'], {
      'clients.rotate-secret': { client: CLIENT, secret: 'cgs_new', previousSecretUntil: '2026-03-01T12:05:00.000Z' },
    });
    assert.deepEqual(graced.calls, [{ name: 'clients.rotate-secret', args: { id: CLIENT.id, graceSeconds: 300 } }]);
    assert.equal(
      (oneJsonDocument(graced.stdout) as Record<string, unknown>)['previous_secret_expires_at'],
      '2026-03-01T12:05:00.000Z',
    );
    // Without --grace the old secret stopped when the new one was made.
    const at = oneJsonDocument((await run(['clients', 'rotate-secret', CLIENT.id, '--json'])).stdout) as Record<
      string,
      unknown
    >;
    assert.equal(at['previous_secret_expires_at'], CLIENT.secretRotatedAt);
    assert.equal(at['client_secret'], 'cgs_new');
  });

  it('numeric options reach the operations as numbers', async () => {
    const audit = await run(['audit', 'list', '--limit', '20', '--json']);
    assert.deepEqual(audit.calls, [{ name: 'audit.list', args: { limit: 20 } }]);
    const sessions = await run(['sessions', 'list', '--platform', 'acme', '--limit', '5', '--json']);
    assert.deepEqual(sessions.calls, [{ name: 'associations.list', args: { platform: 'acme', limit: 5 } }]);
  });

  it('institutions disable default needs --yes, and asks nothing of the database without it', async () => {
    const refused = await run(['institutions', 'disable', 'default']);
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.equal(refused.stderr.trim().split('\n').length, 1);
    assert.match(refused.stderr, /^coregate: disabling "default" locks out every client bound to it .*add --yes/);
    assert.deepEqual(refused.calls, []);
    const confirmed = await run(['institutions', 'disable', 'default', '--yes', '--json']);
    assert.deepEqual(confirmed.calls, [{ name: 'institutions.set-enabled', args: { id: 'default', enabled: false } }]);
    const other = await run(['institutions', 'disable', 'bank-b', '--json']);
    assert.deepEqual(other.calls, [{ name: 'institutions.set-enabled', args: { id: 'bank-b', enabled: false } }]);
  });
});
