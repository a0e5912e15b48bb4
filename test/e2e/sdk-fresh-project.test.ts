/**
 * `@coregate/client` in a fresh TypeScript project as a platform starts one today: the newest
 * `typescript` from the registry, `strict`, `module: nodenext`, no `skipLibCheck`. First with
 * nothing else: no `@types/node` and no DOM library (`lib: ["es2023"]`; TypeScript 6 and later
 * load no `@types/*` package unless `types` lists it), so the package's declarations must name
 * no Node or DOM type. Then with the newest `@types/node` and `types: ["node"]`, handing the
 * client a `crypto.KeyObject` (and `@types/node` 20, the oldest Node the package supports).
 * Installing the tarball must run nothing (npm warns about packages with install-time scripts).
 * Needs the npm registry; npm's cache makes a second run fast.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { npmEnv, packClient } from '../support/packed-client.js';

const run = promisify(execFile);

const CONSUMER = `import { CoregateClient, CoregateError, verifyWebhook, type AccountRecord, type Jwk } from '@coregate/client';
import { generateKeyPairSync } from 'node:crypto';

const { privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = { kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'd' };
export const clients = [
  new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', clientSecret: 'cgs_y' }),
  new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', privateKey, privateKeyId: 'k1' }),
  new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', privateKey: jwk, dpop: true }),
];
export async function balances(customerId: string): Promise<number[]> {
  try {
    const accounts: AccountRecord[] = await clients[0]!.listAccounts(customerId);
    return accounts.map((account) => account.currentBalance);
  } catch (error) {
    if (error instanceof CoregateError && error.status === 404) return [];
    throw error;
  }
}
export const event = (body: string, headers: Record<string, string>) => verifyWebhook(body, headers, 'whsec_x').type;
`;

/** The consumer without Node's types: a JWK or a PEM string for keys, plain objects for headers. */
const BARE_CONSUMER = `import { CoregateClient, CoregateError, verifyWebhook, type AccountRecord, type Jwk } from '@coregate/client';

const jwk: Jwk = { kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'd' };
export const clients = [
  new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', clientSecret: 'cgs_y' }),
  new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', privateKey: '-----BEGIN PRIVATE KEY-----' }),
  new CoregateClient({ baseUrl: 'https://gw.bank.example', clientId: 'cg_x', privateKey: jwk, dpop: true }),
];
export async function balances(customerId: string): Promise<number[]> {
  try {
    const accounts: AccountRecord[] = await clients[0]!.listAccounts(customerId, { timeoutMs: 5000 });
    return accounts.map((account) => account.currentBalance);
  } catch (error) {
    if (error instanceof CoregateError && error.status === 404) return [];
    throw error;
  }
}
export const event = (body: string, headers: Record<string, string>) => verifyWebhook(body, headers, 'whsec_x').type;
`;

/** No `types` (the newest TypeScript then loads no `@types/*`) and no DOM library. */
const BARE_TSCONFIG = {
  compilerOptions: {
    strict: true,
    exactOptionalPropertyTypes: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2023'],
    noEmit: true,
  },
  files: ['bare.ts'],
};

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    types: ['node'],
    noEmit: true,
  },
  files: ['main.ts'],
};

async function npm(cwd: string, args: string[]): Promise<string> {
  const { stdout, stderr } = await run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    env: npmEnv(),
    timeout: 240_000,
    maxBuffer: 8 * 1024 * 1024,
  });
  return `${stdout}${stderr}`;
}

async function typeCheck(cwd: string, project = 'tsconfig.json'): Promise<void> {
  await run(process.execPath, [join(cwd, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(cwd, project)], {
    cwd,
    timeout: 120_000,
    maxBuffer: 8 * 1024 * 1024,
  }).catch((error: Error & { stdout?: string }) =>
    assert.fail(`the consumer does not type-check:\n${error.stdout ?? String(error)}`),
  );
}

describe('@coregate/client in a fresh strict TypeScript project', { timeout: 600_000 }, () => {
  it('installs without install scripts and type-checks with the newest typescript alone (no @types/node, no DOM), then with the newest @types/node, and with @types/node 20', async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'cg-client-fresh-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    const packed = await packClient(work);
    const consumer = join(work, 'consumer');
    await run('mkdir', [consumer]);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(consumer, 'main.ts'), CONSUMER);
    writeFileSync(join(consumer, 'tsconfig.bare.json'), JSON.stringify(BARE_TSCONFIG));
    writeFileSync(join(consumer, 'bare.ts'), BARE_CONSUMER);

    const installed = await npm(consumer, ['install', 'typescript@latest', packed.tarball]);
    assert.doesNotMatch(installed, /install-scripts|install scripts/, 'installing the tarball runs nothing');
    await typeCheck(consumer, 'tsconfig.bare.json');

    await npm(consumer, ['install', '@types/node@latest']);
    await typeCheck(consumer);

    await npm(consumer, ['install', '@types/node@20']);
    await typeCheck(consumer);
  });
});
