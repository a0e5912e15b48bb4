/**
 * `clients create|update … --auth-method private_key_jwt --jwks-file FILE`: no secret is made
 * or printed, `--json` carries `token_endpoint_auth_method`, a JWKS holding a private key is
 * refused (only public keys are stored), and a plain `clients create` prints what it always did.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { selfSignedCertificate } from '../support/tls.js';
import { killAll, runCli, runJson, tempDataDir } from './support/process.js';

after(killAll);

describe('coregate clients … --auth-method (embedded database)', { timeout: 120_000 }, () => {
  let data: { dir: string; remove: () => void };
  let env: Record<string, string>;
  let publicFile: string;
  let privateFile: string;
  before(async () => {
    data = tempDataDir();
    env = { COREGATE_DATA_DIR: data.dir };
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    publicFile = join(data.dir, 'public.jwks.json');
    privateFile = join(data.dir, 'private.jwks.json');
    writeFileSync(publicFile, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k-2026' }] }));
    writeFileSync(privateFile, JSON.stringify({ keys: [{ ...(await exportJWK(privateKey)), kid: 'k-2026' }] }));
  });
  after(() => data?.remove());

  it('create --auth-method private_key_jwt --jwks-file: no secret, the method in --json; show and update keep it', async () => {
    const created = await runJson<Record<string, unknown>>(
      ['clients', 'create', '--name', 'keys', '--auth-method', 'private_key_jwt', '--jwks-file', publicFile, '--json'],
      env,
    );
    assert.equal(created['token_endpoint_auth_method'], 'private_key_jwt');
    assert.ok(!('client_secret' in created), 'no secret printed');
    assert.deepEqual(created['jwks_kids'], ['k-2026']);
    const id = String(created['client_id']);
    const shown = await runJson<Record<string, unknown>>(['clients', 'show', id, '--json'], env);
    assert.equal(shown['token_endpoint_auth_method'], 'private_key_jwt');
    assert.equal(shown['require_bound_tokens'], false);
    const updated = await runJson<Record<string, unknown>>(
      ['clients', 'update', id, '--require-bound-tokens', '--json'],
      env,
    );
    assert.equal(updated['require_bound_tokens'], true);
    const rotate = await runCli(['clients', 'rotate-secret', id, '--json'], env);
    assert.notEqual(rotate.code, 0, 'a key client has no secret to rotate');
  });

  it('refuses a JWKS holding a private key, naming the flag; nothing is created', async () => {
    const before = await runJson<unknown[]>(['clients', 'list', '--json'], env);
    const refused = await runCli(
      [
        'clients',
        'create',
        '--name',
        'leaky',
        '--auth-method',
        'private_key_jwt',
        '--jwks-file',
        privateFile,
        '--json',
      ],
      env,
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /jwks-file/);
    assert.match(refused.stderr, /private key/);
    assert.equal((await runJson<unknown[]>(['clients', 'list', '--json'], env)).length, before.length);
  });

  it('a plain create prints the keys it always printed; --auth-method client_secret_basic adds the method', async () => {
    const plain = await runJson<Record<string, unknown>>(['clients', 'create', '--name', 'plain', '--json'], env);
    assert.deepEqual(Object.keys(plain).sort(), [
      'allowed_ips',
      'client_id',
      'client_secret',
      'grants',
      'institution',
      'platform',
      'scopes',
    ]);
    const explicit = await runJson<Record<string, unknown>>(
      ['clients', 'create', '--name', 'explicit', '--auth-method', 'client_secret_basic', '--json'],
      env,
    );
    assert.equal(explicit['token_endpoint_auth_method'], 'client_secret_basic');
    assert.match(String(explicit['client_secret']), /^cgs_/);
  });

  it('create --auth-method self_signed_tls_client_auth --jwks-file CERT.pem, and tls_client_auth --tls-subject-dn', async () => {
    const certificate = selfSignedCertificate('acme-cli');
    try {
      const selfSigned = await runJson<Record<string, unknown>>(
        [
          'clients',
          'create',
          '--name',
          'self',
          '--auth-method',
          'self_signed_tls_client_auth',
          '--jwks-file',
          certificate.certFile,
          '--json',
        ],
        env,
      );
      assert.equal(selfSigned['token_endpoint_auth_method'], 'self_signed_tls_client_auth');
      assert.ok(!('client_secret' in selfSigned));
      const subject = await runJson<Record<string, unknown>>(
        [
          'clients',
          'create',
          '--name',
          'dn',
          '--auth-method',
          'tls_client_auth',
          '--tls-subject-dn',
          'CN=acme,O=Acme',
          '--json',
        ],
        env,
      );
      assert.equal(subject['tls_subject_dn'], 'CN=acme,O=Acme');
      const missing = await runCli(
        ['clients', 'create', '--name', 'no dn', '--auth-method', 'tls_client_auth', '--json'],
        env,
      );
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /tls-subject-dn/);
    } finally {
      certificate.remove();
    }
  });
});
