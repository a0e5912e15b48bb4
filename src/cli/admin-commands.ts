/**
 * Operator commands that work on the database: `clients …`, `keys …`, `migrate`
 * (and the dispatch of `audit`, `sessions`). Each parses its options, calls one
 * admin operation (`server/admin-operations.ts`: a use case, never raw SQL) and
 * formats the result — the same whether the CLI opened the database itself or a
 * running server executes the operation on its behalf (`server/admin-socket.ts`).
 */
import type { AdminClient, ClientView } from '../server/admin-operations.js';
import { AdminOperationFailed } from '../server/admin-operations.js';
import { UsageError, type CliIo } from './io.js';
import { parse } from './parse-args.js';
import { auditCommand, sessionsCommand } from './audit-sessions-commands.js';
import { institutionsCommand } from './institutions-command.js';
import { webhooksCommand } from './webhooks-commands.js';
import { CLIENT_EDIT_ACTIONS, CLIENT_EDIT_HELP, clientEditCommand } from './client-edit-commands.js';

export const ADMIN_COMMANDS = new Set(['clients', 'keys', 'migrate', 'audit', 'sessions', 'institutions', 'webhooks']);

const CLIENTS_HELP = `Usage:
  coregate clients create --name NAME [--scope core/main] [--platform P] [--allow-ip CIDR]... [--grant refresh_token]
        [--institution ID] [--json]
  coregate clients list [--platform P] [--json]
  coregate clients show ID [--json]
  coregate clients disable ID [--json]
  coregate clients enable ID [--json]
  coregate clients rotate-secret ID [--grace SECONDS] [--json]
${CLIENT_EDIT_HELP}

create prints the client_secret once; only its digest is stored.
Without --platform the client is its own platform. client_credentials is always granted.
Without --institution the client acts for the institution "default" (see \`coregate institutions\`).
rotate-secret --grace keeps the old secret working that long (default 0: cut off at once),
so running instances can be redeployed one by one. Every command here is audited.`;

const KEYS_HELP = `Usage:
  coregate keys rotate [--json]      publish a new signing key; the old one stays in the JWKS until its tokens expire
  coregate keys list [--json]        the keys in the JWKS
  coregate keys revoke KID [--json]  emergency: take a key out of the JWKS now; tokens it signed stop verifying
                                     (at once in the server that runs the command, within 30 s in the others)`;

const MIGRATE_HELP = `Usage:
  coregate migrate [--json]       apply pending database migrations`;

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
  ].join('\n');
}

async function clients(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.out(CLIENTS_HELP);
    return action === undefined ? 2 : 0;
  }
  const printClient = (client: ClientView, json: boolean) => io.out(json ? JSON.stringify(clientJson(client)) : clientText(client));
  switch (action) {
    case 'create': {
      const { values } = parse(rest, {
        name: { type: 'string' },
        scope: { type: 'string', multiple: true },
        platform: { type: 'string' },
        'allow-ip': { type: 'string', multiple: true },
        grant: { type: 'string', multiple: true },
        institution: { type: 'string' },
      }, 0);
      if (values.help) return (io.out(CLIENTS_HELP), 0);
      if (typeof values.name !== 'string') throw new UsageError('--name is required');
      const { client, secret } = await admin.call('clients.create', {
        name: values.name,
        ...(values.platform !== undefined ? { platform: values.platform as string } : {}),
        ...(values.scope !== undefined ? { scopes: values.scope as string[] } : {}),
        ...(values.grant !== undefined ? { grants: values.grant as string[] } : {}),
        ...(values['allow-ip'] !== undefined ? { allowedIps: values['allow-ip'] as string[] } : {}),
        ...(values.institution !== undefined ? { institution: values.institution as string } : {}),
      });
      printSecret(io, client, secret, values.json === true);
      return 0;
    }
    case 'list': {
      const { values } = parse(rest, { platform: { type: 'string' } }, 0);
      if (values.help) return (io.out(CLIENTS_HELP), 0);
      const all = await admin.call('clients.list', typeof values.platform === 'string' ? { platform: values.platform } : {});
      if (values.json) io.out(JSON.stringify(all.map(clientJson)));
      else if (all.length === 0) io.err('no clients yet: create one with `coregate clients create --name NAME`');
      else {
        io.out(['CLIENT_ID\tPLATFORM\tINSTITUTION\tENABLED\tSCOPES\tGRANTS\tNAME', ...all.map((c) => [c.id, c.platform, c.institution, c.enabled, c.scopes.join(' '), c.grants.join(' '), c.name].join('\t'))].join('\n'));
      }
      return 0;
    }
    case 'show':
    case 'disable':
    case 'enable':
    case 'rotate-secret': {
      const { values, positionals } = parse(rest, action === 'rotate-secret' ? { grace: { type: 'string' } } : {}, 1);
      if (values.help) return (io.out(CLIENTS_HELP), 0);
      const id = positionals[0]!;
      const json = values.json === true;
      if (action === 'show') printClient(await admin.call('clients.show', { id }), json);
      else if (action === 'rotate-secret') {
        const grace = values.grace === undefined ? undefined : /^\d+$/.test(String(values.grace)) ? Number(values.grace) : Number.NaN;
        if (grace !== undefined && Number.isNaN(grace)) throw new UsageError('--grace takes a whole number of seconds');
        const { client, secret, previousSecretUntil } = await admin.call('clients.rotate-secret', { id, ...(grace !== undefined ? { graceSeconds: grace } : {}) });
        printSecret(io, client, secret, json);
        io.err(previousSecretUntil ? `the previous secret keeps working until ${previousSecretUntil}` : 'the previous secret no longer works');
      } else {
        const client = await admin.call('clients.set-enabled', { id, enabled: action === 'enable' });
        printClient(client, json);
        if (action === 'disable') io.err('tokens already issued to this client stop working within 60 seconds');
      }
      return 0;
    }
    default:
      if (CLIENT_EDIT_ACTIONS.has(action)) return clientEditCommand(action, rest, admin, io, printClient, CLIENTS_HELP);
      throw new UsageError(`unknown clients command "${action}"\n${CLIENTS_HELP}`);
  }
}

/** The one time a secret is shown: the same JSON document with or without --json. */
function printSecret(io: CliIo, client: ClientView, secret: string, json: boolean): void {
  const document = {
    client_id: client.id,
    client_secret: secret,
    platform: client.platform,
    institution: client.institution,
    scopes: client.scopes,
    grants: client.grants,
    allowed_ips: client.allowedIps,
  };
  io.out(json ? JSON.stringify(document) : JSON.stringify(document, null, 2));
  if (!json) io.err('Store the client_secret now: coregate keeps only a digest and cannot show it again.');
}

async function keys(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.out(KEYS_HELP);
    return action === undefined ? 2 : 0;
  }
  const { values, positionals } = parse(rest, {}, action === 'revoke' && !rest.includes('--help') ? 1 : 0);
  if (values.help) return (io.out(KEYS_HELP), 0);
  switch (action) {
    case 'revoke': {
      const revoked = await admin.call('keys.revoke', { kid: positionals[0]! });
      io.out(values.json ? JSON.stringify(revoked) : `revoked signing key ${revoked.kid}: it is out of the JWKS and tokens it signed no longer verify`);
      if (revoked.rotatedTo) io.err(`it was the active key: ${revoked.rotatedTo} signs from now on`);
      return 0;
    }
    case 'rotate': {
      const rotated = await admin.call('keys.rotate', {});
      const result = { kid: rotated.kid, previous_keys_published_until: rotated.previousKeysPublishedUntil };
      io.out(values.json ? JSON.stringify(result) : `new signing key ${result.kid} is active; previous keys stay published until ${result.previous_keys_published_until}`);
      return 0;
    }
    case 'list': {
      const jwks = await admin.call('keys.list', {});
      io.out(values.json ? JSON.stringify(jwks) : jwks.keys.map((key) => `${String(key['kid'])}\t${String(key['alg'])}\t${String(key['crv'])}`).join('\n'));
      return 0;
    }
    default:
      throw new UsageError(`unknown keys command "${action}"\n${KEYS_HELP}`);
  }
}

async function migrateCommand(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const { values } = parse(args, {}, 0);
  if (values.help) return (io.out(MIGRATE_HELP), 0);
  const report = await admin.call('migrate', {});
  if (values.json) io.out(JSON.stringify(report));
  else io.out(report.applied.length ? `applied ${report.applied.map((m) => m.version).join(', ')}; schema version ${report.current}` : `schema is up to date (version ${report.current})`);
  return 0;
}

/** Runs one admin command; returns the exit status. Usage and domain errors are printed, not thrown. */
export async function runAdminCommand(argv: readonly string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'clients':
        return await clients(args, admin, io);
      case 'keys':
        return await keys(args, admin, io);
      case 'migrate':
        return await migrateCommand(args, admin, io);
      case 'audit':
        return await auditCommand(args, admin, io);
      case 'sessions':
        return await sessionsCommand(args, admin, io);
      case 'institutions':
        return await institutionsCommand(args, admin, io);
      case 'webhooks':
        return await webhooksCommand(args, admin, io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`coregate: ${error.message}`);
      return 2;
    }
    if (error instanceof AdminOperationFailed) {
      io.err(`coregate: ${error.message}${error.problems.map((p) => `\n  --${p.path}: ${p.message}`).join('')}`);
      return 1;
    }
    throw error;
  }
}
