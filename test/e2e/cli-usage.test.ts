/**
 * The CLI's help and usage mistakes, through `main(argv, io)` in process: each
 * command's own help with its flags and examples, the group help listing its commands,
 * `--version`, and unknown flags and commands refused with one line and a suggestion —
 * before any database is opened.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bufferedIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { PACKAGE_INFO } from '../../src/config/package-info.js';

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = bufferedIo();
  const code = await main(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('coregate CLI: help and usage mistakes', () => {
  const parent = mkdtempSync(join(tmpdir(), 'coregate-cli-usage-'));
  // A data dir that must never come into being: nothing here may open a database.
  const dataDir = join(parent, 'never-created');
  const saved = process.env['COREGATE_DATA_DIR'];
  before(() => {
    process.env['COREGATE_DATA_DIR'] = dataDir;
  });
  after(() => {
    if (saved === undefined) delete process.env['COREGATE_DATA_DIR'];
    else process.env['COREGATE_DATA_DIR'] = saved;
    assert.ok(!existsSync(dataDir), 'no command here opened the data dir');
    rmSync(parent, { recursive: true, force: true });
  });

  it("prints one command's help: its usage, flags and examples, not its siblings", async () => {
    const cases = [
      {
        argv: ['clients', 'create'],
        flags: ['--name', '--scope', '--platform', '--allow-ip', '--grant', '--institution', '--json'],
        siblings: ['rotate-secret', 'disable', 'delete'],
      },
      {
        argv: ['institutions', 'add'],
        flags: [
          '--id',
          '--name',
          '--core-url',
          '--core-api-key-file',
          '--core-ca-file',
          '--core-cert-file',
          '--core-key-file',
          '--core-timeout-ms',
          '--json',
        ],
        siblings: ['disable', 'enable', 'show'],
      },
      {
        argv: ['webhooks', 'add'],
        flags: ['--platform', '--url', '--event', '--json'],
        siblings: ['rotate-secret', 'deliveries', 'remove'],
      },
    ];
    for (const { argv, flags, siblings } of cases) {
      const help = await run(...argv, '--help');
      const name = argv.join(' ');
      assert.equal(help.code, 0, name);
      assert.equal(help.stderr, '', name);
      assert.match(help.stdout, new RegExp(`^Usage: coregate ${name} --`), name);
      for (const flag of flags)
        assert.match(help.stdout, new RegExp(`^  ${flag} .*\\S`, 'm'), `${name}: ${flag} with a description`);
      const examples = help.stdout.split('\nExamples:\n')[1];
      assert.ok(examples, `${name}: an Examples section`);
      const lines = examples
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('  $ '));
      assert.ok(lines.length >= 1 && lines.length <= 3, `${name}: 1-3 examples`);
      for (const line of lines) assert.ok(line.startsWith(`  $ coregate ${name} `), line);
      for (const sibling of siblings)
        assert.doesNotMatch(
          help.stdout,
          new RegExp(`coregate ${argv[0]} ${sibling}\\b`),
          `${name} --help names no sibling`,
        );
    }
  });

  it("lists a group's commands, and the commands of coregate", async () => {
    const group = await run('clients', '--help');
    assert.equal(group.code, 0);
    assert.match(group.stdout, /^Usage: coregate clients <command>/);
    for (const command of [
      'create',
      'list',
      'show ID',
      'update ID',
      'disable ID',
      'enable ID',
      'rotate-secret ID',
      'delete ID',
    ]) {
      assert.match(group.stdout, new RegExp(`^  ${command} +\\S`, 'm'), command);
    }
    const top = await run('--help');
    assert.equal(top.code, 0);
    for (const command of [
      'serve',
      'core-sim',
      'clients',
      'keys',
      'migrate',
      'audit',
      'sessions',
      'institutions',
      'webhooks',
    ]) {
      assert.match(top.stdout, new RegExp(`^  ${command} +\\S`, 'm'), command);
    }
    // Without a command: the same list, as an error.
    const bare = await run('clients');
    assert.equal(bare.code, 2);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /^Usage: coregate clients <command>/);
  });

  it('prints the version', async () => {
    for (const flag of ['--version', '-v', 'version']) {
      const version = await run(flag);
      assert.deepEqual(version, { code: 0, stdout: `coregate ${PACKAGE_INFO.version}\n`, stderr: '' });
    }
  });

  it('refuses an unknown flag or command in one line, with a suggestion when one is close', async () => {
    for (const [argv, line] of [
      [['clients', 'create', '--jsn'], 'coregate: unknown option --jsn (did you mean --json?)'],
      [
        ['clients', 'create', '--name', 'x', '--platfrom', 'acme'],
        'coregate: unknown option --platfrom (did you mean --platform?)',
      ],
      [
        ['institutions', 'add', '--core-ulr', 'https://core.example'],
        'coregate: unknown option --core-ulr (did you mean --core-url?)',
      ],
      [['clinets'], 'coregate: unknown command "clinets" (did you mean clients?)'],
      [['clinets', 'list'], 'coregate: unknown command "clinets" (did you mean clients?)'],
      [
        ['webhooks', 'rotate-secrets', 'wh_x'],
        'coregate: unknown command "rotate-secrets" (did you mean rotate-secret?)',
      ],
      [['clients', 'list', '--frobnicate'], 'coregate: unknown option --frobnicate; see coregate clients list --help'],
      [['frobnicate'], 'coregate: unknown command "frobnicate"; see coregate --help'],
      [['clients', 'show'], 'coregate: missing required argument ID; see coregate clients show --help'],
      [['clients', 'create'], 'coregate: --name is required'],
      [
        ['clients', 'rotate-secret', 'cg_x', '--grace', 'soon'],
        'coregate: --grace must be a whole number from 0 to 2592000, got "soon"',
      ],
      [['audit', 'list', '--limit', '0'], 'coregate: --limit must be a whole number from 1 to 10000, got "0"'],
      [
        ['sessions', 'list', '--platform', 'acme', '--limit', '1e3'],
        'coregate: --limit must be a whole number from 1 to 100000, got "1e3"',
      ],
      [
        ['webhooks', 'deliveries', '--platform', 'acme', '--limit', '-1'],
        'coregate: --limit must be a whole number from 1 to 10000, got "-1"',
      ],
      [
        ['institutions', 'update', 'bank-b', '--core-timeout-ms', '5s'],
        'coregate: --core-timeout-ms must be a whole number from 100 to 120000, got "5s"',
      ],
      [
        ['institutions', 'disable', 'default'],
        'coregate: disabling "default" locks out every client bound to it (503 on /core/*, invalid_client for tokens): add --yes to do it anyway',
      ],
    ] as const) {
      const result = await run(...argv);
      assert.deepEqual(result, { code: 2, stdout: '', stderr: `${line}\n` }, argv.join(' '));
    }
  });

  it('serve names its flags, and a stray word (npm start --port N: npm took the flag) says to put flags after --', async () => {
    for (const [argv, line] of [
      [['serve', '--port', 'abc'], 'coregate: --port must be a whole number from 0 to 65535, got "abc"'],
      [['serve', '--port', '70000'], 'coregate: --port must be a whole number from 0 to 65535, got "70000"'],
      [
        ['serve', '9000'],
        `coregate: serve takes no arguments, got "9000"; with npm start, put coregate's flags after --: npm start -- --port 9000`,
      ],
    ] as const) {
      const result = await run(...argv);
      assert.deepEqual(result, { code: 2, stdout: '', stderr: `${line}\n` }, argv.join(' '));
    }
  });

  it('serve --help lists the settings from the configuration schema', async () => {
    const help = await run('serve', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: coregate serve \[--port PORT\] \[--host ADDRESS\]/);
    assert.match(help.stdout, /^ {2}--port <PORT> /m);
    for (const setting of ['PORT', 'HOST', 'DATABASE_URL', 'COREGATE_DATA_DIR', 'COREGATE_ENCRYPTION_KEY']) {
      assert.match(help.stdout, new RegExp(`^  ${setting} \\(default: `, 'm'), setting);
    }
  });
});
