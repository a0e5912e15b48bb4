/**
 * Operator commands that work on the database: `clients …`, `keys …`, `migrate`.
 * They go through the use cases, never raw SQL, and run the same whether the CLI
 * opened the database itself or a running server executes them on its behalf
 * (see `admin-socket.ts`).
 */
import { parseArgs } from 'node:util';
import type { Client } from '../domain/client.js';
import { GatewayError } from '../domain/errors.js';
import { migrate, type MigrationReport } from '../adapters/store/migrate.js';
import type { Services } from '../composition.js';
import { UsageError, type CliIo } from './io.js';
import { auditCommand, sessionsCommand } from './audit-sessions-commands.js';

export type AdminServices = Pick<Services, 'clientRegistry' | 'keyring' | 'database' | 'auditReader' | 'sessionAdmin'> & {
  /**
   * Migrations applied when this command opened the database itself (every command
   * migrates on open): `migrate` reports them as its own work. Unset when a server
   * runs the command, whose startup migrations belong to the server.
   */
  readonly migratedOnOpen?: MigrationReport;
};

export const ADMIN_COMMANDS = new Set(['clients', 'keys', 'migrate', 'audit', 'sessions']);

const CLIENTS_HELP = `Usage:
  coregate clients create --name NAME [--scope core/main] [--platform P] [--allow-ip CIDR]... [--grant refresh_token] [--json]
  coregate clients list [--json]
  coregate clients show ID [--json]
  coregate clients disable ID [--json]
  coregate clients enable ID [--json]
  coregate clients rotate-secret ID [--json]

create prints the client_secret once; only its digest is stored.
Without --platform the client is its own platform. client_credentials is always granted.`;

const KEYS_HELP = `Usage:
  coregate keys rotate [--json]   publish a new signing key; the old one stays in the JWKS until its tokens expire
  coregate keys list [--json]     the keys in the JWKS`;

const MIGRATE_HELP = `Usage:
  coregate migrate [--json]       apply pending database migrations`;

/** The public view of a client, in the CLI's snake_case JSON. */
function clientJson(client: Client) {
  return {
    client_id: client.id,
    name: client.name,
    platform: client.platform,
    scopes: client.scopes,
    grants: client.grants,
    allowed_ips: client.allowedIps,
    enabled: client.enabled,
    created_at: client.createdAt.toISOString(),
    secret_rotated_at: client.secretRotatedAt.toISOString(),
  };
}

function clientText(client: Client): string {
  return [
    `client_id:    ${client.id}`,
    `name:         ${client.name}`,
    `platform:     ${client.platform}`,
    `scopes:       ${client.scopes.join(' ')}`,
    `grants:       ${client.grants.join(' ')}`,
    `allowed_ips:  ${client.allowedIps.length ? client.allowedIps.join(' ') : '(any)'}`,
    `enabled:      ${client.enabled}`,
    `created_at:   ${client.createdAt.toISOString()}`,
    `secret_rotated_at: ${client.secretRotatedAt.toISOString()}`,
  ].join('\n');
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
interface Parsed {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export function parse(args: string[], options: OptionSpec, positionals: number): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    throw new UsageError(positionals === 1 ? 'expected one client ID' : `unexpected argument "${parsed.positionals[0]}"`);
  }
  return parsed;
}

async function clients(args: string[], services: AdminServices, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.out(CLIENTS_HELP);
    return action === undefined ? 2 : 0;
  }
  const printClient = (client: Client, json: boolean) => io.out(json ? JSON.stringify(clientJson(client)) : clientText(client));
  switch (action) {
    case 'create': {
      const { values } = parse(rest, {
        name: { type: 'string' },
        scope: { type: 'string', multiple: true },
        platform: { type: 'string' },
        'allow-ip': { type: 'string', multiple: true },
        grant: { type: 'string', multiple: true },
      }, 0);
      if (values.help) return (io.out(CLIENTS_HELP), 0);
      if (typeof values.name !== 'string') throw new UsageError('--name is required');
      const { client, secret } = await services.clientRegistry.create({
        name: values.name,
        platform: values.platform as string | undefined,
        scopes: values.scope as string[] | undefined,
        grants: values.grant as string[] | undefined,
        allowedIps: values['allow-ip'] as string[] | undefined,
      });
      printSecret(io, client, secret, values.json === true);
      return 0;
    }
    case 'list': {
      const { values } = parse(rest, {}, 0);
      if (values.help) return (io.out(CLIENTS_HELP), 0);
      const all = await services.clientRegistry.list();
      if (values.json) io.out(JSON.stringify(all.map(clientJson)));
      else if (all.length === 0) io.err('no clients yet: create one with `coregate clients create --name NAME`');
      else {
        io.out(['CLIENT_ID\tPLATFORM\tENABLED\tSCOPES\tGRANTS\tNAME', ...all.map((c) => [c.id, c.platform, c.enabled, c.scopes.join(' '), c.grants.join(' '), c.name].join('\t'))].join('\n'));
      }
      return 0;
    }
    case 'show':
    case 'disable':
    case 'enable':
    case 'rotate-secret': {
      const { values, positionals } = parse(rest, {}, 1);
      if (values.help) return (io.out(CLIENTS_HELP), 0);
      const id = positionals[0]!;
      const json = values.json === true;
      if (action === 'show') printClient(await services.clientRegistry.show(id), json);
      else if (action === 'rotate-secret') {
        const { client, secret } = await services.clientRegistry.rotateSecret(id);
        printSecret(io, client, secret, json);
      } else {
        const client = await services.clientRegistry.setEnabled(id, action === 'enable');
        printClient(client, json);
        if (action === 'disable') io.err('tokens already issued to this client stop working within 60 seconds');
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown clients command "${action}"\n${CLIENTS_HELP}`);
  }
}

/** The one time a secret is shown: the same JSON document with or without --json. */
function printSecret(io: CliIo, client: Client, secret: string, json: boolean): void {
  const document = {
    client_id: client.id,
    client_secret: secret,
    platform: client.platform,
    scopes: client.scopes,
    grants: client.grants,
    allowed_ips: client.allowedIps,
  };
  io.out(json ? JSON.stringify(document) : JSON.stringify(document, null, 2));
  if (!json) io.err('Store the client_secret now: coregate keeps only a digest and cannot show it again.');
}

async function keys(args: string[], services: AdminServices, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.out(KEYS_HELP);
    return action === undefined ? 2 : 0;
  }
  const { values } = parse(rest, {}, 0);
  if (values.help) return (io.out(KEYS_HELP), 0);
  switch (action) {
    case 'rotate': {
      const rotated = await services.keyring.rotate();
      const result = { kid: rotated.kid, previous_keys_published_until: rotated.previousKeysPublishedUntil.toISOString() };
      io.out(values.json ? JSON.stringify(result) : `new signing key ${result.kid} is active; previous keys stay published until ${result.previous_keys_published_until}`);
      return 0;
    }
    case 'list': {
      const jwks = await services.keyring.jwks();
      io.out(values.json ? JSON.stringify(jwks) : jwks.keys.map((key) => `${String(key['kid'])}\t${String(key['alg'])}\t${String(key['crv'])}`).join('\n'));
      return 0;
    }
    default:
      throw new UsageError(`unknown keys command "${action}"\n${KEYS_HELP}`);
  }
}

async function migrateCommand(args: string[], services: AdminServices, io: CliIo): Promise<number> {
  const { values } = parse(args, {}, 0);
  if (values.help) return (io.out(MIGRATE_HELP), 0);
  const pending = await migrate(services.database);
  const report: MigrationReport = { applied: [...(services.migratedOnOpen?.applied ?? []), ...pending.applied], current: pending.current };
  if (values.json) io.out(JSON.stringify(report));
  else io.out(report.applied.length ? `applied ${report.applied.map((m) => m.version).join(', ')}; schema version ${report.current}` : `schema is up to date (version ${report.current})`);
  return 0;
}

/** Runs one admin command; returns the exit status. Usage and domain errors are printed, not thrown. */
export async function runAdminCommand(argv: readonly string[], services: AdminServices, io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'clients':
        return await clients(args, services, io);
      case 'keys':
        return await keys(args, services, io);
      case 'migrate':
        return await migrateCommand(args, services, io);
      case 'audit':
        return await auditCommand(args, services, io);
      case 'sessions':
        return await sessionsCommand(args, services, io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`coregate: ${error.message}`);
      return 2;
    }
    if (error instanceof GatewayError) {
      const problems = (error.data['errors'] as { path: string; message: string }[] | undefined) ?? [];
      io.err(`coregate: ${error.message}${problems.map((p) => `\n  --${p.path}: ${p.message}`).join('')}`);
      return 1;
    }
    throw error;
  }
}
