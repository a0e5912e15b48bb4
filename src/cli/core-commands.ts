/**
 * `coregate core check` (docs/connecting-your-core.md#coregate-core-check): the checks a bank
 * runs against its core before going live. An institution's core goes through the admin
 * operation `core.check` (its record is in the database, its service user sealed there); a
 * reference-protocol core that is no institution yet (`--core-url`) is checked from here, with
 * no database. Exit status 0 only when every check passed, 1 when one failed.
 */
import { Command } from 'commander';
import type { FormADemographics } from '../app/check-core.js';
import { loadConfig } from '../config/config.js';
import { parseRegistration } from '../domain/registration.js';
import type { CoreCheckReport } from '../server/core-check.js';
import { UsageError } from './io.js';
import { examples, printData, secretFrom, withJson, type AdminContext } from './program.js';

interface CheckOptions {
  institution?: string;
  coreUrl?: string;
  coreApiKeyFile?: string;
  customerKey?: string;
  formAFile?: string;
  json?: boolean;
}

/**
 * The test customer of `--form-a-file` (`{socialSecurityNumber, birthDay, accountNumber}`),
 * checked as a registration's demographics are. A refusal names the fields, never their values.
 */
function formAFrom(path: string): FormADemographics {
  let demographics: unknown;
  try {
    demographics = JSON.parse(secretFrom('form-a-file', path));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError('--form-a-file must hold a JSON object {socialSecurityNumber, birthDay, accountNumber}');
  }
  const parsed = parseRegistration({ demographics, registration: { customerId: 'core-check' } }, new Date());
  if (!parsed.ok)
    throw new UsageError(
      `--form-a-file: ${parsed.problems.map((problem) => `${problem.path.replace('/demographics', '') || '/'} ${problem.message}`).join('; ')}`,
    );
  const subject = parsed.registration.subject;
  if (subject.kind !== 'demographics') throw new UsageError('--form-a-file must hold demographics');
  return {
    socialSecurityNumber: subject.socialSecurityNumber,
    birthDay: subject.birthDay,
    accountNumber: subject.accountNumber,
  };
}

function reportText(report: CoreCheckReport): string {
  const lines = report.checks.map((check) => `${check.ok ? 'PASS' : 'FAIL'} ${check.name}: ${check.detail}`);
  const failed = report.checks.filter((check) => !check.ok).length;
  lines.push(
    failed === 0 ? `all ${report.checks.length} checks passed` : `${failed} of ${report.checks.length} checks failed`,
  );
  return lines.join('\n');
}

async function check(context: AdminContext, options: CheckOptions): Promise<CoreCheckReport> {
  const customerKey = options.customerKey;
  if (options.institution !== undefined) {
    return (await context.admin()).call('core.check', {
      institution: options.institution,
      ...(customerKey === undefined ? {} : { customerKey }),
      ...(options.formAFile === undefined ? {} : { formA: formAFrom(options.formAFile) }),
    });
  }
  const config = loadConfig();
  const { checkCoreAt } = await import('../server/core-check.js');
  return checkCoreAt(config, {
    coreUrl: options.coreUrl!,
    apiKey: options.coreApiKeyFile === undefined ? undefined : secretFrom('core-api-key-file', options.coreApiKeyFile),
    customerKey,
  });
}

export function coreCommand(context: AdminContext): Command {
  const { io } = context;
  const core = new Command('core')
    .summary("check a bank's core before going live")
    .description("Commands about a bank's core banking system.")
    .usage('<command> [options]');

  withJson(
    core
      .command('check')
      .summary("run the checks a bank's core must pass before going live")
      .description(
        'Checks a core: readiness (for Fineract also that the tenant and the service user are accepted); with --form-a-file, that the test customer is found by demographics (nothing of the file is printed); with --customer-key, a session for that customer, its accounts (every record an account record, field by field) and ending the session; and that a delegate reference ID the core never issued is rejected. Prints PASS or FAIL for each check with what was expected, never a value read from the core. Exits 0 only when every check passed.',
      )
      .usage(
        '--institution ID [--customer-key KEY] [--form-a-file FILE] [--json]\n       --core-url URL [--core-api-key-file FILE] [--customer-key KEY] [--json]',
      )
      .option('--institution <ID>', "an institution's core (its settings from the database)")
      .option('--core-url <URL>', 'a core speaking the reference core protocol that is not an institution yet')
      .option('--core-api-key-file <FILE>', 'with --core-url: file with the API key it takes')
      .option('--customer-key <KEY>', 'a test customer: checks a session and its accounts')
      .option(
        '--form-a-file <FILE>',
        'with --institution: JSON {socialSecurityNumber, birthDay, accountNumber} of a test customer: checks that registration by demographics finds them',
      ),
  )
    .addHelpText(
      'after',
      examples(
        'coregate core check --institution bank-f --customer-key 42',
        'coregate core check --institution bank-f --customer-key 42 --form-a-file test-customer.json',
        'coregate core check --core-url https://adapter.bank.example/coregate --core-api-key-file bank.key --customer-key C-1001 --json',
      ),
    )
    .action(async (options: CheckOptions) => {
      if ((options.institution === undefined) === (options.coreUrl === undefined))
        throw new UsageError('give either --institution ID or --core-url URL');
      if (options.coreApiKeyFile !== undefined && options.coreUrl === undefined)
        throw new UsageError("--core-api-key-file goes with --core-url (an institution's key is in the database)");
      if (options.formAFile !== undefined && options.institution === undefined)
        throw new UsageError('--form-a-file goes with --institution');
      if (options.coreUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(options.coreUrl))
        throw new UsageError('--core-url must be an http:// or https:// URL');
      if (options.customerKey !== undefined && !/^[\x21-\x7e]{1,128}$/.test(options.customerKey))
        throw new UsageError('--customer-key must be 1 to 128 visible ASCII characters');
      const report = await check(context, options);
      if (options.customerKey === undefined && !options.json)
        io.err('no --customer-key: a session, its accounts and ending it were not checked');
      printData(io, options.json, { ok: report.ok, checks: report.checks }, () => reportText(report));
      if (!report.ok) context.exitCode = 1;
    });
  return core;
}
