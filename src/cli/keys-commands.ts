/**
 * `coregate keys rotate|list|revoke`: the keys that sign access tokens, through the admin
 * operations `keys.*`. `list` marks the key that signs new tokens.
 */
import { Command } from 'commander';
import { examples, printData, table, withJson, type AdminContext } from './program.js';

export function keysCommand(context: AdminContext): Command {
  const { io } = context;
  const keys = new Command('keys')
    .summary('manage token signing keys: rotate, list, revoke')
    .description('The keys that sign access tokens, published in /.well-known/jwks.json.')
    .usage('<command> [options]');

  withJson(
    keys
      .command('rotate')
      .summary('publish a new signing key')
      .description('Makes a new signing key active; the old one stays in the JWKS until the tokens it signed expire.')
      .usage('[--json]'),
  )
    .addHelpText('after', examples('coregate keys rotate'))
    .action(async (options: { json?: boolean }) => {
      const rotated = await (await context.admin()).call('keys.rotate', {});
      const result = { kid: rotated.kid, previous_keys_published_until: rotated.previousKeysPublishedUntil };
      printData(
        io,
        options.json,
        result,
        () =>
          `new signing key ${result.kid} is active; previous keys stay published until ${result.previous_keys_published_until}`,
      );
    });

  withJson(
    keys
      .command('list')
      .summary('the keys in the JWKS; ACTIVE marks the one that signs')
      .description(
        "Lists the published keys: kid, algorithm, curve, and which one signs new tokens (ACTIVE; the others only verify tokens they signed). --json prints the JWKS with active_kid beside its keys, and each key's dates (created, retired, published until).",
      )
      .usage('[--json]'),
  )
    .addHelpText('after', examples('coregate keys list', 'coregate keys list --json'))
    .action(async (options: { json?: boolean }) => {
      const { keys: published, activeKid, dates } = await (await context.admin()).call('keys.list', {});
      printData(io, options.json, { keys: published, active_kid: activeKid, dates }, () =>
        table(
          ['KID', 'ALG', 'CRV', 'ACTIVE'],
          published.map((key) => [
            String(key['kid']),
            String(key['alg']),
            // RSA keys (PS256) have no curve.
            typeof key['crv'] === 'string' ? key['crv'] : null,
            key['kid'] === activeKid ? 'ACTIVE' : null,
          ]),
        ),
      );
    });

  withJson(
    keys
      .command('revoke')
      .summary('emergency: take a key out of the JWKS now')
      .description(
        'Emergency: takes a key out of the JWKS now; tokens it signed stop verifying at once in every running server (within 30 s at most, should a server have lost its database connection). A revoked active key is replaced.',
      )
      .usage('KID [--json]')
      .argument('<KID>', 'the key ID, as keys list shows it'),
  )
    .addHelpText('after', examples('coregate keys list', 'coregate keys revoke 3f1c9b2e-8d4a-4c6b-9e2f-7a1d5c0b8e64'))
    .action(async (kid: string, options: { json?: boolean }) => {
      const revoked = await (await context.admin()).call('keys.revoke', { kid });
      printData(
        io,
        options.json,
        revoked,
        () => `revoked signing key ${revoked.kid}: it is out of the JWKS and tokens it signed no longer verify`,
      );
      if (revoked.rotatedTo) io.err(`it was the active key: ${revoked.rotatedTo} signs from now on`);
    });
  return keys;
}
