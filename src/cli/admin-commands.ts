/**
 * Operator commands on clients and keys: `clients …`, `keys …`, `migrate`. Each checks
 * its options, calls one admin operation (`server/admin-operations.ts`: a use case, never
 * raw SQL) and formats the result — the same whether the CLI opened the database itself or
 * a running server executes the operation on its behalf (`server/admin-socket.ts`).
 */
import { Command } from 'commander';
import type { ClientView } from '../server/admin-operations.js';
import { UsageError, type CliIo } from './io.js';
import { examples, repeatable, required, withJson, type AdminContext } from './program.js';
import { addClientEditCommands, type PrintClient } from './client-edit-commands.js';
import { addClientSecurityOptions, clientSecurityArgs, clientSecurityJson, type ClientSecurityOptions } from './client-security-options.js';

/** The public view of a client, in the CLI's snake_case JSON. */
function clientJson(client: ClientView) {
  return {
    client_id: client.id,
    name: client.name,
    platform: client.platform,
    institution: client.institution,
    scopes: client.scopes,
    grants: client.grants,
    allowed_ips: client.allowedIps,
    enabled: client.enabled,
    created_at: client.createdAt,
    secret_rotated_at: client.secretRotatedAt,
    ...clientSecurityJson(client),
  };
}

function clientText(client: ClientView): string {
  return [
    `client_id:    ${client.id}`,
    `name:         ${client.name}`,
    `platform:     ${client.platform}`,
    `institution:  ${client.institution}`,
    `scopes:       ${client.scopes.join(' ')}`,
    `grants:       ${client.grants.join(' ')}`,
    `allowed_ips:  ${client.allowedIps.length ? client.allowedIps.join(' ') : '(any)'}`,
    `enabled:      ${client.enabled}`,
    `created_at:   ${client.createdAt}`,
    `secret_rotated_at: ${client.secretRotatedAt}`,
    `token_endpoint_auth_method: ${client.authMethod}`,
    `require_bound_tokens: ${client.requireBoundTokens}`,
    ...(client.tlsSubjectDn !== null ? [`tls_subject_dn: ${client.tlsSubjectDn}`] : []),
    ...(client.jwksKids !== null ? [`jwks_kids: ${client.jwksKids.join(' ')}`] : []),
  ].join('\n');
}

/**
 * The one time a secret is shown: the same JSON document with or without --json. A client with
 * keys has none. Its authentication method is added when the command chose one (`withMethod`):
 * a plain `clients create` prints the keys it always printed.
 */
function printSecret(io: CliIo, client: ClientView, secret: string | undefined, json: boolean, withMethod = false): void {
  const document = {
    client_id: client.id,
    ...(secret !== undefined ? { client_secret: secret } : {}),
    platform: client.platform,
    institution: client.institution,
    scopes: client.scopes,
    grants: client.grants,
    allowed_ips: client.allowedIps,
    ...(withMethod || client.authMethod !== 'client_secret_basic' ? clientSecurityJson(client) : {}),
  };
  io.out(json ? JSON.stringify(document) : JSON.stringify(document, null, 2));
  if (!json && secret !== undefined) io.err('Store the client_secret now: coregate keeps only a digest and cannot show it again.');
}

interface CreateOptions extends ClientSecurityOptions {
  name?: string;
  scope?: string[];
  platform?: string;
  allowIp?: string[];
  grant?: string[];
  institution?: string;
  json?: boolean;
}

function wholeSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError('--grace takes a whole number of seconds');
  return Number(value);
}

export function clientsCommand(context: AdminContext): Command {
  const { io } = context;
  const print: PrintClient = (client, json) => io.out(json ? JSON.stringify(clientJson(client)) : clientText(client));
  const clients = new Command('clients')
    .summary('manage platform clients: create, list, show, update, disable, enable, rotate-secret, delete')
    .description('Platform clients: the OAuth clients that get tokens for core/main. Every command here is audited.')
    .usage('<command> [options]');

  withJson(
    addClientSecurityOptions(clients
      .command('create')
      .summary('register a client and print its secret once')
      .description(
        'Registers a platform client and prints its client_secret once (only a digest is stored). client_credentials is always granted.',
      )
      .usage('--name NAME [--scope S]... [--platform P] [--allow-ip CIDR]... [--grant refresh_token] [--institution ID] [--auth-method M [--jwks-file FILE | --tls-subject-dn DN]] [--require-bound-tokens] [--json]')
      .option('--name <NAME>', 'a name for people (required)')
      .option('--scope <S>', 'a scope it may ask for; repeatable (default: core/main)', repeatable)
      .option('--platform <P>', 'the platform it acts for (default: its own)')
      .option('--allow-ip <CIDR>', 'a range it may call from; repeatable (default: any)', repeatable)
      .option('--grant <G>', 'an extra grant: refresh_token', repeatable)
      .option('--institution <ID>', 'the institution (bank) it acts for (default: default)')),
  )
    .addHelpText(
      'after',
      examples(
        'coregate clients create --name "Acme web" --platform acme --json',
        'coregate clients create --name "Acme mobile" --platform acme --grant refresh_token --allow-ip 203.0.113.0/24',
        'coregate clients create --name "Fintech at Bank B" --platform fintech --institution bank-b',
        'coregate clients create --name "Acme (keys)" --platform acme --auth-method private_key_jwt --jwks-file acme-public.jwks.json --require-bound-tokens',
      ),
    )
    .action(async (options: CreateOptions) => {
      const name = required(options.name, 'name');
      const admin = await context.admin();
      const { client, secret } = await admin.call('clients.create', {
        name,
        ...(options.platform !== undefined ? { platform: options.platform } : {}),
        ...(options.scope !== undefined ? { scopes: options.scope } : {}),
        ...(options.grant !== undefined ? { grants: options.grant } : {}),
        ...(options.allowIp !== undefined ? { allowedIps: options.allowIp } : {}),
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
        ...clientSecurityArgs(options),
      });
      printSecret(io, client, secret, options.json === true, options.authMethod !== undefined || options.requireBoundTokens !== undefined);
    });

  withJson(
    clients
      .command('list')
      .summary('the clients, optionally of one platform')
      .description('Lists the clients (never their secrets).')
      .usage('[--platform P] [--json]')
      .option('--platform <P>', 'only the clients of this platform'),
  )
    .addHelpText('after', examples('coregate clients list', 'coregate clients list --platform acme --json'))
    .action(async (options: { platform?: string; json?: boolean }) => {
      const all = await (await context.admin()).call('clients.list', options.platform !== undefined ? { platform: options.platform } : {});
      if (options.json) io.out(JSON.stringify(all.map(clientJson)));
      else if (all.length === 0) io.err('no clients yet: create one with `coregate clients create --name NAME`');
      else {
        io.out(['CLIENT_ID\tPLATFORM\tINSTITUTION\tENABLED\tSCOPES\tGRANTS\tNAME', ...all.map((c) => [c.id, c.platform, c.institution, c.enabled, c.scopes.join(' '), c.grants.join(' '), c.name].join('\t'))].join('\n'));
      }
    });

  withJson(clients.command('show').summary('one client').description('Shows one client (never its secret).').usage('ID [--json]').argument('<ID>', 'the client ID (cg_…)'))
    .addHelpText('after', examples('coregate clients show cg_4fJq0nXbZl2mYtR8pW1s --json'))
    .action(async (id: string, options: { json?: boolean }) => {
      print(await (await context.admin()).call('clients.show', { id }), options.json === true);
    });

  for (const [action, summary] of [
    ['disable', 'stop a client: no new tokens; tokens already issued stop working at once in every running server (within 60 seconds at most)'],
    ['enable', 'let a disabled client get tokens again'],
  ] as const) {
    withJson(clients.command(action).summary(summary).description(`${summary[0]!.toUpperCase()}${summary.slice(1)}.`).usage('ID [--json]').argument('<ID>', 'the client ID (cg_…)'))
      .addHelpText('after', examples(`coregate clients ${action} cg_4fJq0nXbZl2mYtR8pW1s`))
      .action(async (id: string, options: { json?: boolean }) => {
        const client = await (await context.admin()).call('clients.set-enabled', { id, enabled: action === 'enable' });
        print(client, options.json === true);
        if (action === 'disable') io.err('tokens already issued to this client stop working at once in every running server (within 60 seconds at most)');
      });
  }

  withJson(
    clients
      .command('rotate-secret')
      .summary('a new secret, printed once')
      .description(
        'Gives the client a new secret and prints it once. With --grace the old secret keeps working that long, so running instances can be redeployed one by one; without it the old one stops at once.',
      )
      .usage('ID [--grace SECONDS] [--json]')
      .argument('<ID>', 'the client ID (cg_…)')
      .option('--grace <SECONDS>', 'how long the old secret keeps working (default: 0)'),
  )
    .addHelpText('after', examples('coregate clients rotate-secret cg_4fJq0nXbZl2mYtR8pW1s --grace 3600 --json'))
    .action(async (id: string, options: { grace?: string; json?: boolean }) => {
      const grace = wholeSeconds(options.grace);
      const { client, secret, previousSecretUntil } = await (await context.admin()).call('clients.rotate-secret', { id, ...(grace !== undefined ? { graceSeconds: grace } : {}) });
      printSecret(io, client, secret, options.json === true);
      io.err(previousSecretUntil ? `the previous secret keeps working until ${previousSecretUntil}` : 'the previous secret no longer works');
    });

  addClientEditCommands(clients, context, print);
  return clients;
}

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
      io.out(options.json ? JSON.stringify(result) : `new signing key ${result.kid} is active; previous keys stay published until ${result.previous_keys_published_until}`);
    });

  withJson(keys.command('list').summary('the keys in the JWKS').description('Lists the published keys: kid, algorithm, curve.').usage('[--json]'))
    .addHelpText('after', examples('coregate keys list --json'))
    .action(async (options: { json?: boolean }) => {
      const jwks = await (await context.admin()).call('keys.list', {});
      io.out(options.json ? JSON.stringify(jwks) : jwks.keys.map((key) => `${String(key['kid'])}\t${String(key['alg'])}\t${String(key['crv'])}`).join('\n'));
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
      io.out(options.json ? JSON.stringify(revoked) : `revoked signing key ${revoked.kid}: it is out of the JWKS and tokens it signed no longer verify`);
      if (revoked.rotatedTo) io.err(`it was the active key: ${revoked.rotatedTo} signs from now on`);
    });
  return keys;
}

export function migrateCommand(context: AdminContext): Command {
  return withJson(
    new Command('migrate')
      .summary('apply pending database migrations')
      .description('Applies pending database migrations (every command that opens the database applies them first).')
      .usage('[--json]'),
  )
    .addHelpText('after', examples('DATABASE_URL=postgres://coregate@db/coregate coregate migrate'))
    .action(async (options: { json?: boolean }) => {
      const report = await (await context.admin()).call('migrate', {});
      if (options.json) context.io.out(JSON.stringify(report));
      else context.io.out(report.applied.length ? `applied ${report.applied.map((m) => m.version).join(', ')}; schema version ${report.current}` : `schema is up to date (version ${report.current})`);
    });
}
