/**
 * 1b. Token issuance with the signing key on an HSM: POST /oauth2/token on a coregate whose
 * keys are on a SoftHSM2 token (COREGATE_KEY_STORE=pkcs11, EdDSA through CKM_EDDSA), beside
 * the same request on a coregate with the file store, in rounds taken in turn. SoftHSM2 is a
 * library in coregate's process, so its signature is counted in coregate's CPU; a network
 * HSM would move that work to the HSM and add its round trip to the latency instead
 * (docs/operations.md#keys-in-an-hsm). Skipped where SoftHSM2 is not installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkTokenEndpoint, tokenRequest } from '../lib/checks.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { startCoregate } from '../lib/servers.mjs';
import { freshStorage } from '../lib/storage.mjs';

export const name = 'token-hsm';
export const names = [name];
export const title = '1b. Token issuance, signing key on an HSM (SoftHSM2 through PKCS#11)';

/** Signing through the HSM costs at most this many times the file store's CPU per token. */
export const MAX_CPU_RATIO = 1.5;

const MODULE = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so'].find((path) =>
  existsSync(path),
);

/** A fresh SoftHSM2 token in the run's temporary directory: coregate's settings for it. */
function freshToken(ctx) {
  const dir = mkdtempSync(join(ctx.tmpDir, 'softhsm-'));
  mkdirSync(join(dir, 'tokens'));
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const pin = `bench-${process.pid}`;
  execFileSync(
    'softhsm2-util',
    ['--init-token', '--free', '--label', 'coregate-bench', '--pin', pin, '--so-pin', pin],
    {
      stdio: 'ignore',
      env: { ...process.env, SOFTHSM2_CONF: conf },
    },
  );
  const pinFile = join(dir, 'pin');
  writeFileSync(pinFile, `${pin}\n`, { mode: 0o600 });
  return {
    COREGATE_KEY_STORE: 'pkcs11',
    COREGATE_PKCS11_LIBRARY: MODULE,
    COREGATE_PKCS11_TOKEN_LABEL: 'coregate-bench',
    COREGATE_PKCS11_PIN_FILE: pinFile,
    SOFTHSM2_CONF: conf,
  };
}

async function verifiedClient(coregate, what) {
  const client = await coregate.createClient(`bench ${what}`, 'bench');
  const checked = await checkTokenEndpoint({
    what: `coregate (${what}) POST /oauth2/token`,
    tokenUrl: `${coregate.url}/oauth2/token`,
    jwksUrl: `${coregate.url}/.well-known/jwks.json`,
    issuer: coregate.url,
    client,
  });
  return { client, alg: checked.alg };
}

export async function run(ctx) {
  if (!MODULE) {
    ctx.results.addSkipped(name, 'SoftHSM2 is not installed (apt-get install softhsm2)');
    return;
  }
  const kind = ctx.primaryStorage;
  const file = await startCoregate(ctx, { storage: await freshStorage(ctx, kind, 'token-file') });
  try {
    const hsm = await startCoregate(ctx, { storage: await freshStorage(ctx, kind, 'token-hsm'), env: freshToken(ctx) });
    try {
      const onFile = await verifiedClient(file, 'file store');
      const onHsm = await verifiedClient(hsm, 'pkcs11');
      ctx.log(`token-hsm: both answer with a verified ${onHsm.alg} JWT; loading both, in turns`);
      const pair = await measurePair(ctx, {
        subject: { server: hsm, spec: { origin: hsm.url, path: '/oauth2/token', ...tokenRequest(onHsm.client) } },
        baseline: { server: file, spec: { origin: file.url, path: '/oauth2/token', ...tokenRequest(onFile.client) } },
      });
      const row = ctx.results.addRow({
        scenario: 'token',
        variant: `${kind}, signing key on SoftHSM2 (PKCS#11)`,
        subject: 'coregate',
        measurement: pair.subject,
        settings: hsm.settings,
        notes: [`${onHsm.alg} JWT signed by the token`, roundsNote(pair)],
      });
      const baselineRow = ctx.results.addRow({
        scenario: 'token',
        variant: `${kind}, file store, in turns with the HSM`,
        subject: 'coregate',
        baseline: true,
        measurement: pair.baseline,
      });
      ctx.results.compareCpu(row, baselineRow, {
        name: `token CPU µs/req, signing on SoftHSM2 vs the file store (${kind})`,
        max: MAX_CPU_RATIO,
        label: 'of the file store',
      });
    } finally {
      await hsm.stop();
    }
  } finally {
    await file.stop();
  }
}
