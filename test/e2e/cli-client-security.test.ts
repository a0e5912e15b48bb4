/**
 * `clients create|update … --auth-method private_key_jwt --jwks-file FILE`: no secret is made
 * or printed, `--json` carries `token_endpoint_auth_method`, a JWKS holding a private key is
 * refused (only public keys are stored), a PEM public key is registered as a JWK Set (kid its
 * RFC 7638 thumbprint) and a PEM private key refused with the command that extracts the public
 * one, and a plain `clients create` prints what it always did.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { selfSignedCertificate } from '../support/tls.js';
import { killAll, runCli, runJson, tempDataDir } from './support/process.js';

after(killAll);

describe('coregate clients … --auth-method (embedded database)', { timeout: 720_000 }, () => {
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

  it('takes a PEM public key (Ed25519, P-256, RSA) made with openssl, its kid the RFC 7638 thumbprint', async () => {
    for (const [name, keygen] of [
      ['ed25519', ['-algorithm', 'ed25519']],
      ['p256', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']],
      ['rsa', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']],
    ] as const) {
      const keyFile = join(data.dir, `${name}-key.pem`);
      const publicPem = join(data.dir, `${name}-public.pem`);
      execFileSync('openssl', ['genpkey', ...keygen, '-out', keyFile]);
      execFileSync('openssl', ['pkey', '-in', keyFile, '-pubout', '-out', publicPem]);
      const created = await runJson<Record<string, unknown>>(
        ['clients', 'create', '--name', name, '--auth-method', 'private_key_jwt', '--jwks-file', publicPem, '--json'],
        env,
      );
      const jwk = createPublicKey(readFileSync(publicPem)).export({ format: 'jwk' }) as JWK;
      assert.deepEqual(created['jwks_kids'], [await calculateJwkThumbprint(jwk)], name);
      const shown = await runJson<Record<string, unknown>>(
        ['clients', 'show', String(created['client_id']), '--json'],
        env,
      );
      assert.equal(shown['token_endpoint_auth_method'], 'private_key_jwt');
    }
  });

  it('refuses a PEM private key, saying so and how to extract the public key; nothing is created', async () => {
    const keyFile = join(data.dir, 'client-key.pem');
    execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', keyFile]);
    const before = await runJson<unknown[]>(['clients', 'list', '--json'], env);
    const refused = await runCli(
      ['clients', 'create', '--name', 'pem-private', '--auth-method', 'private_key_jwt', '--jwks-file', keyFile],
      env,
    );
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr.trim().split('\n').at(-1),
      `coregate: --jwks-file: ${keyFile} is a private key, which must stay with the client: register its public key, extracted with: openssl pkey -in ${keyFile} -pubout -out public.pem`,
    );
    assert.equal((await runJson<unknown[]>(['clients', 'list', '--json'], env)).length, before.length);
  });
});
