/**
 * `coregate institutions add|update|list|show|disable|enable`
 * (docs/behaviour.md#institution-commands), through the admin operations `institutions.*` (use
 * case `InstitutionAdmin`). The core API key and the core's service user are read from files here
 * and never printed: the output says `hasApiKey` and `hasCredentials`.
 */
import { Command } from 'commander';
import type { InstitutionInput } from '../app/institution-admin.js';
import { INSTITUTION_SETTING_RULES } from '../domain/institution-settings.js';
import {
  CORE_KINDS,
  DEFAULT_INSTITUTION,
  FINERACT_CUSTOMER_KEY_MODES,
  FINERACT_SSN_LOOKUP_MODES,
  type FineractSsnLookupMode,
  FINERACT_DEFAULTS,
} from '../domain/institution.js';
import { AdminOperationFailed } from '../server/admin-operations.js';
import type { InstitutionArgs, InstitutionView } from '../server/institution-operations.js';
import { UsageError } from './io.js';
import {
  examples,
  existingFile,
  fields,
  printData,
  required,
  secretFrom,
  table,
  wholeNumber,
  withJson,
  type AdminContext,
} from './program.js';

const DEFAULT_INSTITUTION_HELP = `"default" always exists and takes its core from CORE_URL, COREGATE_CORE_KIND,
COREGATE_CORE_API_KEY, COREGATE_FINERACT_* and COREGATE_CORE_TIMEOUT_MS. Changes reach every running server at once (within
COREGATE_INSTITUTION_CACHE_SECONDS, 10 s by default, while its change feed is down).`;

/**
 * The flag of each field of `institutions add|update`: the use case names fields, the operator
 * typed flags, so its refusals are shown with these ({@link inFlags}).
 */
const FLAG_OF_FIELD: { readonly [Field in keyof InstitutionInput]-?: string } = {
  name: 'name',
  coreUrl: 'core-url',
  coreApiKey: 'core-api-key-file',
  coreCaFile: 'core-ca-file',
  coreCertFile: 'core-cert-file',
  coreKeyFile: 'core-key-file',
  coreTimeoutMs: 'core-timeout-ms',
  coreKind: 'core-kind',
  coreCredentials: 'core-credentials-file',
  fineractTenant: 'fineract-tenant',
  fineractSsnDocumentType: 'fineract-ssn-document-type',
  fineractCustomerKey: 'fineract-customer-key',
  fineractSsnLookup: 'fineract-ssn-lookup',
  fineractSessionTtlSeconds: 'fineract-session-ttl-seconds',
};

/** The fields a message may name: the camel-case ones, never a plain word such as "name". */
const FIELD_NAMES = new RegExp(
  `\\b(${Object.keys(FLAG_OF_FIELD)
    .filter((field) => /[A-Z]/.test(field))
    .join('|')})\\b`,
  'g',
);

/**
 * A refusal of the institution admin in the operator's words: each problem under its flag
 * (the main loop prints `--path`), and a field named in a message as `--flag`.
 */
function inFlags(error: unknown): unknown {
  if (!(error instanceof AdminOperationFailed)) return error;
  const flag = (field: string) => FLAG_OF_FIELD[field as keyof InstitutionInput] ?? field;
  return new AdminOperationFailed(
    error.message,
    error.problems.map((problem) => ({
      path: flag(problem.path),
      message: problem.message.replace(FIELD_NAMES, (field) => `--${flag(field)}`),
    })),
  );
}

function rethrowInFlags(error: unknown): never {
  throw inFlags(error);
}

/** The flags that describe an institution's core, shared by `add` (where the first two are required) and `update`. */
function coreOptions(command: Command, adding: boolean): Command {
  const needed = adding ? ' (required)' : '';
  return command
    .option('--name <NAME>', `a name for people${needed}`)
    .option('--core-url <URL>', `its core's base URL (Fineract: its context root)${needed}`)
    .option(
      '--core-kind <KIND>',
      `the core's protocol: ${CORE_KINDS.join(' or ')}${adding ? ' (default: coregate, the reference core protocol)' : ''}`,
    )
    .option('--core-api-key-file <FILE>', 'file with the core API key (stored sealed)')
    .option(
      '--core-credentials-file <FILE>',
      `file with the Fineract service user as username:password on one line (stored sealed)${adding ? '; required with --core-kind fineract' : ''}`,
    )
    .option('--fineract-tenant <TENANT>', `the Fineract tenant${adding ? '; required with --core-kind fineract' : ''}`)
    .option(
      '--fineract-ssn-document-type <NAME>',
      `the client identifier document type holding the SSN (default: ${FINERACT_DEFAULTS.ssnDocumentType})`,
    )
    .option(
      '--fineract-customer-key <MODE>',
      `customer key: the client's ${FINERACT_CUSTOMER_KEY_MODES.join(' or ')} (default: ${FINERACT_DEFAULTS.customerKey})`,
    )
    .option(
      '--fineract-ssn-lookup <MODE>',
      `how Form A finds a client by SSN: ${FINERACT_SSN_LOOKUP_MODES.join(', ')} (default: ${FINERACT_DEFAULTS.ssnLookup}; identifier-search sends the SSN in a query string to Fineract)`,
    )
    .option(
      '--fineract-session-ttl-seconds <N>',
      `lifetime of a Fineract session (default: ${FINERACT_DEFAULTS.sessionTtlSeconds})`,
      wholeNumber(
        INSTITUTION_SETTING_RULES.fineractSessionTtlSeconds.minimum,
        INSTITUTION_SETTING_RULES.fineractSessionTtlSeconds.maximum,
      ),
    )
    .option('--core-ca-file <FILE>', 'CA certificates to trust for the core (PEM)')
    .option('--core-cert-file <FILE>', 'client certificate (PEM) for mutual TLS')
    .option('--core-key-file <FILE>', "that certificate's private key (PEM)")
    .option(
      '--core-timeout-ms <N>',
      'core timeout (default: COREGATE_CORE_TIMEOUT_MS)',
      wholeNumber(INSTITUTION_SETTING_RULES.coreTimeoutMs.minimum, INSTITUTION_SETTING_RULES.coreTimeoutMs.maximum),
    );
}

interface CoreOptions {
  name?: string;
  coreUrl?: string;
  coreApiKeyFile?: string;
  coreCaFile?: string;
  coreCertFile?: string;
  coreKeyFile?: string;
  coreTimeoutMs?: number;
  coreKind?: string;
  coreCredentialsFile?: string;
  fineractTenant?: string;
  fineractSsnDocumentType?: string;
  fineractCustomerKey?: string;
  fineractSsnLookup?: string;
  fineractSessionTtlSeconds?: number;
  json?: boolean;
}

/**
 * The CLI's JSON of an institution (the keys of docs/behaviour.md#institution-commands first);
 * never the key or the service user. `fineract` only for a Fineract core.
 */
function institutionJson(institution: InstitutionView) {
  return {
    id: institution.id,
    name: institution.name,
    coreUrl: institution.coreUrl,
    enabled: institution.enabled,
    hasApiKey: institution.hasApiKey,
    coreKind: institution.coreKind,
    ...(institution.fineract ? { fineract: institution.fineract } : {}),
    hasCredentials: institution.hasCredentials,
    coreTimeoutMs: institution.coreTimeoutMs,
    createdAt: institution.createdAt,
    updatedAt: institution.updatedAt,
    coreCaFile: institution.coreCaFile,
    coreCertFile: institution.coreCertFile,
    coreKeyFile: institution.coreKeyFile,
    coreSource: institution.coreSource,
  };
}

/** What an operator must know of each SSN lookup mode (docs/cores/fineract.md#releases). */
const SSN_LOOKUP_NOTES: Readonly<Record<FineractSsnLookupMode, string>> = {
  'client-search': 'needs a Fineract release that matches client identifiers in POST /v2/clients/search (after 1.10)',
  'identifier-search':
    "the SSN travels in the query string of GET /v1/search to the bank's Fineract and may be written to its access log",
  off: 'Form A is refused; customers register by key only',
};

function ssnLookupText(mode: FineractSsnLookupMode): string {
  return `${mode}   (${SSN_LOOKUP_NOTES[mode]})`;
}

function institutionText(institution: InstitutionView): string {
  return fields([
    ['id', institution.id],
    ['name', institution.name],
    [
      'core_url',
      `${institution.coreUrl ?? '(built-in simulator)'}${institution.coreSource === 'config' ? '   (from CORE_URL)' : ''}`,
    ],
    ['enabled', institution.enabled],
    [
      'core_kind',
      `${institution.coreKind}${institution.coreSource === 'config' ? '   (from COREGATE_CORE_KIND)' : ''}`,
    ],
    ...(institution.fineract
      ? ([
          ['fineract_tenant', institution.fineract.tenant],
          ['fineract_ssn_document_type', institution.fineract.ssnDocumentType],
          ['fineract_customer_key', institution.fineract.customerKey],
          ['fineract_ssn_lookup', ssnLookupText(institution.fineract.ssnLookup)],
          ['fineract_session_ttl_seconds', institution.fineract.sessionTtlSeconds],
          ['has_credentials', institution.hasCredentials],
        ] as const)
      : []),
    ['has_api_key', institution.hasApiKey],
    ['core_timeout_ms', institution.coreTimeoutMs],
    ['mutual_tls', institution.coreCertFile ? `${institution.coreCertFile} (key ${institution.coreKeyFile})` : 'no'],
    ['core_ca_file', institution.coreCaFile],
    ['created_at', institution.createdAt],
    ['updated_at', institution.updatedAt],
  ]);
}

function coreArgs(options: CoreOptions): Omit<InstitutionArgs, 'id'> {
  const args: { -readonly [K in keyof Omit<InstitutionArgs, 'id'>]: Omit<InstitutionArgs, 'id'>[K] } = {};
  if (options.name !== undefined) args.name = options.name;
  if (options.coreUrl !== undefined) args.coreUrl = options.coreUrl;
  if (options.coreApiKeyFile !== undefined) args.coreApiKey = secretFrom('core-api-key-file', options.coreApiKeyFile);
  if (options.coreKind !== undefined) args.coreKind = options.coreKind;
  if (options.coreCredentialsFile !== undefined)
    args.coreCredentials = secretFrom('core-credentials-file', options.coreCredentialsFile);
  if (options.fineractTenant !== undefined) args.fineractTenant = options.fineractTenant;
  if (options.fineractSsnDocumentType !== undefined) args.fineractSsnDocumentType = options.fineractSsnDocumentType;
  if (options.fineractCustomerKey !== undefined) args.fineractCustomerKey = options.fineractCustomerKey;
  if (options.fineractSsnLookup !== undefined) args.fineractSsnLookup = options.fineractSsnLookup;
  if (options.fineractSessionTtlSeconds !== undefined)
    args.fineractSessionTtlSeconds = options.fineractSessionTtlSeconds;
  if (options.coreCaFile !== undefined) args.coreCaFile = existingFile('core-ca-file', options.coreCaFile);
  if (options.coreCertFile !== undefined) args.coreCertFile = existingFile('core-cert-file', options.coreCertFile);
  if (options.coreKeyFile !== undefined) args.coreKeyFile = existingFile('core-key-file', options.coreKeyFile);
  if (options.coreTimeoutMs !== undefined) args.coreTimeoutMs = options.coreTimeoutMs;
  return args;
}

export function institutionsCommand(context: AdminContext): Command {
  const { io } = context;
  const print = (institution: InstitutionView, json: boolean | undefined) =>
    printData(io, json, institutionJson(institution), () => institutionText(institution));
  // Said on stderr whatever the output format: the operator chose to send SSNs in a query string.
  const warnOfSsnInQuery = (institution: InstitutionView) => {
    if (institution.fineract?.ssnLookup === 'identifier-search')
      io.err(`fineract-ssn-lookup identifier-search: ${SSN_LOOKUP_NOTES['identifier-search']}`);
  };
  const institutions = new Command('institutions')
    .summary('banks and their cores: add, update, list, show, disable, enable')
    .description('An institution is one bank and its core; coregate serves several from one deployment.')
    .usage('<command> [options]')
    .addHelpText('after', `\n${DEFAULT_INSTITUTION_HELP}`);

  withJson(
    coreOptions(
      institutions
        .command('add')
        .summary('add a bank and its core')
        .description(
          'Adds a bank and its core, which speaks the reference core protocol (docs/core-protocol.md) or, with --core-kind fineract, is an Apache Fineract (docs/cores/fineract.md). The API key file holds the key on one line, the credentials file username:password on one line; both are stored sealed and never shown again.',
        )
        .usage(
          '--id ID --name NAME --core-url URL [--core-api-key-file FILE] [--core-ca-file FILE] [--core-cert-file FILE --core-key-file FILE] [--core-timeout-ms N] [--json]\n       --id ID --name NAME --core-kind fineract --core-url URL --fineract-tenant TENANT --core-credentials-file FILE [--fineract-ssn-document-type NAME] [--fineract-customer-key id|external-id] [--fineract-ssn-lookup client-search|identifier-search|off] [--fineract-session-ttl-seconds N] [--core-ca-file FILE] [--core-timeout-ms N] [--json]',
        )
        .option('--id <ID>', 'its ID: 1-64 of a-z, 0-9 and - (required)'),
      true,
    ),
  )
    .addHelpText(
      'after',
      examples(
        'coregate institutions add --id bank-b --name "Bank B" --core-url https://core.bank-b.example/coregate --core-api-key-file bank-b.key',
        'coregate institutions add --id bank-c --name "Bank C" --core-url https://core.bank-c.example --core-cert-file client.pem --core-key-file client.key',
        'coregate institutions add --id bank-f --name "Bank F" --core-kind fineract --core-url https://fineract.bank-f.example/fineract-provider --fineract-tenant bank-f --core-credentials-file bank-f.credentials',
      ),
    )
    .action(async (options: CoreOptions & { id?: string }) => {
      const id = required(options.id, 'id');
      required(options.name, 'name');
      required(options.coreUrl, 'core-url');
      if (options.coreKind === 'fineract') {
        // No tenant default on `add`: a wrong tenant reads another bank's data, so it is named.
        for (const [value, flag] of [
          [options.fineractTenant, 'fineract-tenant'],
          [options.coreCredentialsFile, 'core-credentials-file'],
        ] as const) {
          if (value === undefined) throw new UsageError(`--${flag} is required with --core-kind fineract`);
        }
      }
      const args = coreArgs(options);
      const admin = await context.admin();
      const added = await admin.call('institutions.add', { id, ...args }).catch(rethrowInFlags);
      warnOfSsnInQuery(added);
      print(added, options.json);
    });

  withJson(
    coreOptions(
      institutions
        .command('update')
        .summary("change a bank's name or core")
        .description(
          "Changes a bank's name or core; flags not given stay as they are. Switching to --core-kind fineract needs --fineract-tenant (its other settings start from their defaults), and --core-credentials-file unless a service user is stored already.",
        )
        .usage(
          'ID [--name NAME] [--core-url URL] [--core-kind coregate|fineract] [--core-api-key-file FILE] [--core-credentials-file FILE] [--fineract-tenant TENANT] [--fineract-ssn-document-type NAME] [--fineract-customer-key id|external-id] [--fineract-ssn-lookup client-search|identifier-search|off] [--fineract-session-ttl-seconds N] [--core-ca-file FILE] [--core-cert-file FILE] [--core-key-file FILE] [--core-timeout-ms N] [--json]',
        )
        .argument('<ID>', 'the institution ID'),
      false,
    ),
  )
    .addHelpText(
      'after',
      examples(
        'coregate institutions update bank-b --core-api-key-file bank-b-2026.key',
        'coregate institutions update bank-b --core-timeout-ms 5000',
        'coregate institutions update bank-f --core-credentials-file bank-f-2026.credentials',
      ),
    )
    .action(async (id: string, options: CoreOptions) => {
      const args = coreArgs(options);
      const admin = await context.admin();
      const updated = await admin.call('institutions.update', { id, ...args }).catch(rethrowInFlags);
      if (args.fineractSsnLookup !== undefined) warnOfSsnInQuery(updated);
      print(updated, options.json);
    });

  withJson(
    institutions
      .command('list')
      .summary('the institutions')
      .description('Lists the institutions (never an API key or a service user).')
      .usage('[--json]'),
  )
    .addHelpText('after', examples('coregate institutions list --json'))
    .action(async (options: { json?: boolean }) => {
      const all = await (await context.admin()).call('institutions.list', {});
      printData(io, options.json, all.map(institutionJson), () =>
        table(
          ['ID', 'ENABLED', 'CORE_KIND', 'CORE_URL', 'HAS_API_KEY', 'HAS_CREDENTIALS', 'NAME'],
          all.map((i) => [
            i.id,
            i.enabled,
            i.coreKind,
            i.coreUrl ?? '(built-in simulator)',
            i.hasApiKey,
            i.hasCredentials,
            i.name,
          ]),
        ),
      );
    });

  withJson(
    institutions
      .command('show')
      .summary('one institution')
      .description('Shows one institution (never its API key or service user).')
      .usage('ID [--json]')
      .argument('<ID>', 'the institution ID'),
  )
    .addHelpText('after', examples('coregate institutions show bank-b'))
    .action(async (id: string, options: { json?: boolean }) => {
      print(await (await context.admin()).call('institutions.show', { id }), options.json);
    });

  withJson(
    institutions
      .command('disable')
      .summary('stop a bank: its clients get 503 on /core/* and invalid_client for tokens')
      .description(
        `Stops a bank: its clients get 503 on /core/* and invalid_client for tokens. Disabling "${DEFAULT_INSTITUTION}" locks out every client bound to it, so it takes --yes.`,
      )
      .usage('ID [--yes] [--json]')
      .argument('<ID>', 'the institution ID')
      .option('--yes', `confirm disabling "${DEFAULT_INSTITUTION}"`),
  )
    .addHelpText(
      'after',
      examples('coregate institutions disable bank-b', `coregate institutions disable ${DEFAULT_INSTITUTION} --yes`),
    )
    .action(async (id: string, options: { yes?: boolean; json?: boolean }) => {
      if (id === DEFAULT_INSTITUTION && options.yes !== true) {
        throw new UsageError(
          `disabling "${DEFAULT_INSTITUTION}" locks out every client bound to it (503 on /core/*, invalid_client for tokens): add --yes to do it anyway`,
        );
      }
      print(await (await context.admin()).call('institutions.set-enabled', { id, enabled: false }), options.json);
      io.err(
        'running servers apply this at once (within COREGATE_INSTITUTION_CACHE_SECONDS, 10 s by default, while their change feed is down)',
      );
    });

  withJson(
    institutions
      .command('enable')
      .summary('serve a disabled bank again')
      .description('Serves a disabled bank again.')
      .usage('ID [--json]')
      .argument('<ID>', 'the institution ID'),
  )
    .addHelpText('after', examples('coregate institutions enable bank-b'))
    .action(async (id: string, options: { json?: boolean }) => {
      print(await (await context.admin()).call('institutions.set-enabled', { id, enabled: true }), options.json);
      io.err(
        'running servers apply this at once (within COREGATE_INSTITUTION_CACHE_SECONDS, 10 s by default, while their change feed is down)',
      );
    });
  return institutions;
}
