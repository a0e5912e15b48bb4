/**
 * `coregate clients create|list|show|update|disable|enable|rotate-secret|delete`: platform
 * clients, through the admin operations `clients.*` (`server/admin-operations.ts`; each one
 * audited there). A secret is printed once, by `create` and `rotate-secret`.
 */
import { Command } from 'commander';
import { MAX_GRACE_SECONDS } from '../app/client-registry.js';
import type { ClientView } from '../server/admin-operations.js';
import type { CliIo } from './io.js';
import {
  examples,
  fields,
  printData,
  repeatable,
  required,
  table,
  wholeNumber,
  withJson,
  type AdminContext,
} from './program.js';
import {
  addClientSecurityOptions,
  clientSecurityArgs,
  clientSecurityJson,
  type ClientSecurityOptions,
} from './client-security-options.js';

/** How soon running servers see a change to a client (docs/operations.md "How changes reach every process"). */
const AT_ONCE_EVERYWHERE =
  "at once in every running server (within COREGATE_CLIENT_CACHE_SECONDS, 30 s by default, while a server's change feed is down)";

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

function clientFields(client: ClientView) {
  return [
    ['client_id', client.id],
    ['name', client.name],
    ['platform', client.platform],
    ['institution', client.institution],
    ['scopes', client.scopes.join(' ')],
    ['grants', client.grants.join(' ')],
    ['allowed_ips', client.allowedIps.length ? client.allowedIps.join(' ') : '(any)'],
    ['enabled', client.enabled],
    ['created_at', client.createdAt],
    ['secret_rotated_at', client.secretRotatedAt],
    ['token_endpoint_auth_method', client.authMethod],
    ['require_bound_tokens', client.requireBoundTokens],
    ...(client.tlsSubjectDn !== null ? [['tls_subject_dn', client.tlsSubjectDn] as const] : []),
    ...(client.jwksKids !== null ? [['jwks_kids', client.jwksKids.join(' ')] as const] : []),
  ] as const;
}

/**
 * The one time a secret is shown (the keys of `create`: docs/behaviour.md#cli-commands). After
 * a rotation it also says until when the previous secret works: the end of `--grace`, or the
 * rotation itself. A client with keys or a certificate has no secret. Its authentication method
 * is added when the command chose one (`withMethod`): a plain `clients create` prints the keys
 * it always printed.
 */
function printSecret(
  io: CliIo,
  client: ClientView,
  secret: string | undefined,
  json: boolean | undefined,
  previousSecretExpiresAt?: string,
  withMethod = false,
): void {
  const document = {
    client_id: client.id,
    ...(secret !== undefined ? { client_secret: secret } : {}),
    platform: client.platform,
    institution: client.institution,
    scopes: client.scopes,
    grants: client.grants,
    allowed_ips: client.allowedIps,
    ...(previousSecretExpiresAt === undefined ? {} : { previous_secret_expires_at: previousSecretExpiresAt }),
    ...(withMethod || client.authMethod !== 'client_secret_basic' ? clientSecurityJson(client) : {}),
  };
  printData(io, json, document, () => {
    const [id, ...rest] = clientFields(client);
    const shownSecret = secret === undefined ? [] : [['client_secret', secret] as const];
    return fields([
      id,
      ...shownSecret,
      ...rest,
      ...(previousSecretExpiresAt === undefined
        ? []
        : [['previous_secret_expires_at', previousSecretExpiresAt] as const]),
    ]);
  });
  if (secret !== undefined)
    io.err('Store the client_secret now: coregate keeps only a digest and cannot show it again.');
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

interface UpdateOptions extends ClientSecurityOptions {
  name?: string;
  scope?: string[];
  grant?: string[];
  allowIp?: string[];
  clearAllowIps?: boolean;
  json?: boolean;
}

export function clientsCommand(context: AdminContext): Command {
  const { io } = context;
  const print = (client: ClientView, json: boolean | undefined) =>
    printData(io, json, clientJson(client), () => fields(clientFields(client)));
  const clients = new Command('clients')
    .summary('manage platform clients: create, list, show, update, disable, enable, rotate-secret, delete')
    .description('Platform clients: the OAuth clients that get tokens for core/main. Every command here is audited.')
    .usage('<command> [options]');

  withJson(
    addClientSecurityOptions(
      clients
        .command('create')
        .summary('register a client and print its secret once')
        .description(
          'Registers a platform client and prints its client_secret once (only a digest is stored). client_credentials is always granted.',
        )
        .usage(
          '--name NAME [--scope S]... [--platform P] [--allow-ip CIDR]... [--grant refresh_token] [--institution ID] [--auth-method M [--jwks-file FILE | --tls-subject-dn DN]] [--require-bound-tokens] [--json]',
        )
        .option('--name <NAME>', 'a name for people (required)')
        .option('--scope <S>', 'a scope it may ask for; repeatable (default: core/main)', repeatable)
        .option('--platform <P>', 'the platform it acts for (default: its own)')
        .option('--allow-ip <CIDR>', 'a range it may call from; repeatable (default: any)', repeatable)
        .option('--grant <G>', 'an extra grant: refresh_token', repeatable)
        .option('--institution <ID>', 'the institution (bank) it acts for (default: default)'),
    ),
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
      // The key file is read (and a private key refused) before any database is opened.
      const security = await clientSecurityArgs(options);
      const admin = await context.admin();
      const { client, secret } = await admin.call('clients.create', {
        name,
        ...(options.platform !== undefined ? { platform: options.platform } : {}),
        ...(options.scope !== undefined ? { scopes: options.scope } : {}),
        ...(options.grant !== undefined ? { grants: options.grant } : {}),
        ...(options.allowIp !== undefined ? { allowedIps: options.allowIp } : {}),
        ...(options.institution !== undefined ? { institution: options.institution } : {}),
        ...security,
      });
      printSecret(
        io,
        client,
        secret,
        options.json,
        undefined,
        options.authMethod !== undefined || options.requireBoundTokens !== undefined,
      );
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
      const all = await (
        await context.admin()
      ).call('clients.list', options.platform !== undefined ? { platform: options.platform } : {});
      if (!options.json && all.length === 0)
        io.err('no clients yet: create one with `coregate clients create --name NAME`');
      else {
        printData(io, options.json, all.map(clientJson), () =>
          table(
            ['CLIENT_ID', 'PLATFORM', 'INSTITUTION', 'ENABLED', 'SCOPES', 'GRANTS', 'NAME'],
            all.map((c) => [
              c.id,
              c.platform,
              c.institution,
              c.enabled,
              c.scopes.join(' '),
              c.grants.join(' '),
              c.name,
            ]),
          ),
        );
      }
    });

  withJson(
    clients
      .command('show')
      .summary('one client')
      .description('Shows one client (never its secret).')
      .usage('ID [--json]')
      .argument('<ID>', 'the client ID (cg_…)'),
  )
    .addHelpText('after', examples('coregate clients show cg_4fJq0nXbZl2mYtR8pW1s --json'))
    .action(async (id: string, options: { json?: boolean }) => {
      print(await (await context.admin()).call('clients.show', { id }), options.json);
    });

  withJson(
    addClientSecurityOptions(
      clients
        .command('update')
        .summary('change a client in place (same ID and secret)')
        .description(
          `Changes a client in place: same ID, same secret. --scope, --grant and --allow-ip replace the whole list. The change applies ${AT_ONCE_EVERYWHERE}.`,
        )
        .usage(
          'ID [--name NAME] [--scope S]... [--grant G]... [--allow-ip CIDR]... [--clear-allow-ips] [--auth-method M] [--jwks-file FILE] [--tls-subject-dn DN] [--[no-]require-bound-tokens] [--json]',
        )
        .argument('<ID>', 'the client ID (cg_…)')
        .option('--name <NAME>', 'a new name')
        .option('--scope <S>', 'its scopes from now on; repeatable', repeatable)
        .option('--grant <G>', 'its grants from now on; repeatable', repeatable)
        .option('--allow-ip <CIDR>', 'its address ranges from now on; repeatable', repeatable)
        .option('--clear-allow-ips', 'let it call from any address'),
      true,
    ),
  )
    .addHelpText(
      'after',
      examples(
        'coregate clients update cg_4fJq0nXbZl2mYtR8pW1s --allow-ip 203.0.113.0/24 --allow-ip 198.51.100.7/32',
        'coregate clients update cg_4fJq0nXbZl2mYtR8pW1s --name "Acme web (EU)" --clear-allow-ips',
        'coregate clients update cg_4fJq0nXbZl2mYtR8pW1s --jwks-file acme-public-2027.jwks.json',
      ),
    )
    .action(async (id: string, options: UpdateOptions) => {
      const security = await clientSecurityArgs(options);
      const client = await (
        await context.admin()
      ).call('clients.update', {
        id,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.scope !== undefined ? { scopes: options.scope } : {}),
        ...(options.grant !== undefined ? { grants: options.grant } : {}),
        ...(options.allowIp !== undefined ? { allowedIps: options.allowIp } : {}),
        ...(options.clearAllowIps === true ? { clearAllowedIps: true } : {}),
        ...security,
      });
      print(client, options.json);
      io.err(`the change applies ${AT_ONCE_EVERYWHERE}`);
    });

  for (const [action, summary] of [
    ['disable', `stop a client: no new tokens; tokens already issued stop working ${AT_ONCE_EVERYWHERE}`],
    ['enable', 'let a disabled client get tokens again'],
  ] as const) {
    withJson(
      clients
        .command(action)
        .summary(summary)
        .description(`${summary[0]!.toUpperCase()}${summary.slice(1)}.`)
        .usage('ID [--json]')
        .argument('<ID>', 'the client ID (cg_…)'),
    )
      .addHelpText('after', examples(`coregate clients ${action} cg_4fJq0nXbZl2mYtR8pW1s`))
      .action(async (id: string, options: { json?: boolean }) => {
        const client = await (await context.admin()).call('clients.set-enabled', { id, enabled: action === 'enable' });
        print(client, options.json);
        if (action === 'disable') io.err(`tokens already issued to this client stop working ${AT_ONCE_EVERYWHERE}`);
      });
  }

  withJson(
    clients
      .command('rotate-secret')
      .summary('a new secret, printed once')
      .description(
        'Gives the client a new secret and prints it once, with previous_secret_expires_at: until when the old secret works. With --grace the old secret keeps working that long, so running instances can be redeployed one by one; without it the old one stops at once.',
      )
      .usage('ID [--grace SECONDS] [--json]')
      .argument('<ID>', 'the client ID (cg_…)')
      .option(
        '--grace <SECONDS>',
        'how long the old secret keeps working (default: 0)',
        wholeNumber(0, MAX_GRACE_SECONDS),
      ),
  )
    .addHelpText('after', examples('coregate clients rotate-secret cg_4fJq0nXbZl2mYtR8pW1s --grace 3600 --json'))
    .action(async (id: string, options: { grace?: number; json?: boolean }) => {
      const { client, secret, previousSecretUntil } = await (
        await context.admin()
      ).call('clients.rotate-secret', {
        id,
        ...(options.grace !== undefined ? { graceSeconds: options.grace } : {}),
      });
      // Without a grace period the old secret stopped when the new one was made.
      printSecret(io, client, secret, options.json, previousSecretUntil ?? client.secretRotatedAt);
      io.err(
        previousSecretUntil
          ? `the previous secret keeps working until ${previousSecretUntil}`
          : 'the previous secret no longer works',
      );
    });

  withJson(
    clients
      .command('delete')
      .summary('delete a client and its refresh tokens')
      .description(`Deletes a client and its refresh tokens; its access tokens stop working ${AT_ONCE_EVERYWHERE}.`)
      .usage('ID [--json]')
      .argument('<ID>', 'the client ID (cg_…)'),
  )
    .addHelpText('after', examples('coregate clients delete cg_4fJq0nXbZl2mYtR8pW1s'))
    .action(async (id: string, options: { json?: boolean }) => {
      const result = await (await context.admin()).call('clients.delete', { id });
      printData(io, options.json, result, () => `deleted client ${result.client_id}`);
      io.err(`its refresh tokens are gone; its access tokens stop working ${AT_ONCE_EVERYWHERE}`);
    });
  return clients;
}
