/**
 * `coregate institutions add|update|list|show|disable|enable` (CONTRACT §8), through
 * the admin operations `institutions.*` (use case `InstitutionAdmin`). The core API
 * key is read from a file here and never printed: the output says `hasApiKey`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AdminClient } from '../server/admin-operations.js';
import type { InstitutionArgs, InstitutionView } from '../server/institution-operations.js';
import { UsageError, type CliIo } from './io.js';
import { parse, type OptionSpec } from './parse-args.js';

export const INSTITUTIONS_HELP = `Usage:
  coregate institutions add --id ID --name NAME --core-url URL [--core-api-key-file FILE]
        [--core-ca-file FILE] [--core-cert-file FILE --core-key-file FILE] [--core-timeout-ms N] [--json]
  coregate institutions update ID [--name NAME] [--core-url URL] [--core-api-key-file FILE]
        [--core-ca-file FILE] [--core-cert-file FILE] [--core-key-file FILE] [--core-timeout-ms N] [--json]
  coregate institutions list [--json]
  coregate institutions show ID [--json]
  coregate institutions disable ID [--json]
  coregate institutions enable ID [--json]

An institution is one bank and its core. "default" always exists and takes its core from
CORE_URL, COREGATE_CORE_API_KEY and COREGATE_CORE_TIMEOUT_MS. The API key file holds the key
on one line; it is stored sealed and never shown again. Changes reach every running server
within COREGATE_INSTITUTION_CACHE_SECONDS (10 s by default). A disabled institution's clients
get 503 on /core/* and invalid_client at the token endpoint.`;

const CORE_OPTIONS: OptionSpec = {
  name: { type: 'string' },
  'core-url': { type: 'string' },
  'core-api-key-file': { type: 'string' },
  'core-ca-file': { type: 'string' },
  'core-cert-file': { type: 'string' },
  'core-key-file': { type: 'string' },
  'core-timeout-ms': { type: 'string' },
};

/** The CLI's JSON of an institution (CONTRACT §8 keys first); never the key itself. */
function institutionJson(institution: InstitutionView) {
  return {
    id: institution.id,
    name: institution.name,
    coreUrl: institution.coreUrl,
    enabled: institution.enabled,
    hasApiKey: institution.hasApiKey,
    coreTimeoutMs: institution.coreTimeoutMs,
    createdAt: institution.createdAt,
    updatedAt: institution.updatedAt,
    coreCaFile: institution.coreCaFile,
    coreCertFile: institution.coreCertFile,
    coreKeyFile: institution.coreKeyFile,
    coreSource: institution.coreSource,
  };
}

function institutionText(institution: InstitutionView): string {
  const core = institution.coreUrl ?? '(built-in simulator)';
  return [
    `id:              ${institution.id}`,
    `name:            ${institution.name}`,
    `core_url:        ${core}${institution.coreSource === 'config' ? '   (from CORE_URL)' : ''}`,
    `enabled:         ${institution.enabled}`,
    `has_api_key:     ${institution.hasApiKey}`,
    `core_timeout_ms: ${institution.coreTimeoutMs ?? '-'}`,
    `mutual_tls:      ${institution.coreCertFile ? `${institution.coreCertFile} (key ${institution.coreKeyFile})` : 'no'}`,
    `core_ca_file:    ${institution.coreCaFile ?? '-'}`,
    `created_at:      ${institution.createdAt}`,
    `updated_at:      ${institution.updatedAt}`,
  ].join('\n');
}

/** A readable file, as an absolute path (the server may run in another directory). */
function existingFile(flag: string, path: string): string {
  const absolute = resolve(path);
  try {
    readFileSync(absolute);
  } catch (error) {
    throw new UsageError(`--${flag}: cannot read ${absolute} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  return absolute;
}

/** The key file's content: one line, surrounding whitespace dropped. Never echoed. */
function apiKeyFrom(path: string): string {
  const absolute = existingFile('core-api-key-file', path);
  return readFileSync(absolute, 'utf8').trim();
}

function coreArgs(values: Record<string, unknown>): Omit<InstitutionArgs, 'id'> {
  const text = (flag: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : undefined);
  const timeout = text('core-timeout-ms');
  if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new UsageError('--core-timeout-ms: must be a whole number of milliseconds');
  const args: { -readonly [K in keyof Omit<InstitutionArgs, 'id'>]: Omit<InstitutionArgs, 'id'>[K] } = {};
  if (text('name') !== undefined) args.name = text('name')!;
  if (text('core-url') !== undefined) args.coreUrl = text('core-url')!;
  if (text('core-api-key-file') !== undefined) args.coreApiKey = apiKeyFrom(text('core-api-key-file')!);
  if (text('core-ca-file') !== undefined) args.coreCaFile = existingFile('core-ca-file', text('core-ca-file')!);
  if (text('core-cert-file') !== undefined) args.coreCertFile = existingFile('core-cert-file', text('core-cert-file')!);
  if (text('core-key-file') !== undefined) args.coreKeyFile = existingFile('core-key-file', text('core-key-file')!);
  if (timeout !== undefined) args.coreTimeoutMs = Number(timeout);
  return args;
}

export async function institutionsCommand(args: string[], admin: AdminClient, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.out(INSTITUTIONS_HELP);
    return action === undefined ? 2 : 0;
  }
  const print = (institution: InstitutionView, json: boolean) => io.out(json ? JSON.stringify(institutionJson(institution)) : institutionText(institution));
  switch (action) {
    case 'add': {
      const { values } = parse(rest, { id: { type: 'string' }, ...CORE_OPTIONS }, 0);
      if (values.help) return (io.out(INSTITUTIONS_HELP), 0);
      if (typeof values.id !== 'string') throw new UsageError('--id is required');
      if (typeof values.name !== 'string') throw new UsageError('--name is required');
      if (typeof values['core-url'] !== 'string') throw new UsageError('--core-url is required');
      print(await admin.call('institutions.add', { id: values.id, ...coreArgs(values) }), values.json === true);
      return 0;
    }
    case 'update': {
      const { values, positionals } = parse(rest, CORE_OPTIONS, 1);
      if (values.help) return (io.out(INSTITUTIONS_HELP), 0);
      print(await admin.call('institutions.update', { id: positionals[0]!, ...coreArgs(values) }), values.json === true);
      return 0;
    }
    case 'list': {
      const { values } = parse(rest, {}, 0);
      if (values.help) return (io.out(INSTITUTIONS_HELP), 0);
      const all = await admin.call('institutions.list', {});
      if (values.json) io.out(JSON.stringify(all.map(institutionJson)));
      else {
        const rows = all.map((i) => [i.id, String(i.enabled), i.coreUrl ?? '(built-in simulator)', String(i.hasApiKey), i.name].join('\t'));
        io.out(['ID\tENABLED\tCORE_URL\tHAS_API_KEY\tNAME', ...rows].join('\n'));
      }
      return 0;
    }
    case 'show':
    case 'disable':
    case 'enable': {
      const { values, positionals } = parse(rest, {}, 1);
      if (values.help) return (io.out(INSTITUTIONS_HELP), 0);
      const id = positionals[0]!;
      const json = values.json === true;
      if (action === 'show') print(await admin.call('institutions.show', { id }), json);
      else {
        print(await admin.call('institutions.set-enabled', { id, enabled: action === 'enable' }), json);
        io.err(`running servers apply this within COREGATE_INSTITUTION_CACHE_SECONDS (10 s by default)`);
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown institutions command "${action}"\n${INSTITUTIONS_HELP}`);
  }
}
