import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { NO_DATE, type AccountRecord } from '../../src/domain/account.js';
import { DEMO_CUSTOMERS, generatedCustomer } from '../../src/fakes/core-simulator/demo-data.js';
import { FixtureError, loadFixtureFile, parseFixtures } from '../../src/fakes/core-simulator/fixtures.js';

const record = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...(DEMO_CUSTOMERS[0]!.accounts[0] as AccountRecord),
  ...overrides,
});
const customer = (overrides: Record<string, unknown> = {}) => ({
  customerKey: 'C-1',
  socialSecurityNumber: '111-22-3333',
  accountNumber: '1000',
  birthDay: '1990-01-31',
  accounts: [record({ customerKey: 'C-1' })],
  ...overrides,
});

/** The problems of a document, as `path: message` lines. */
function problemsOf(document: unknown): string[] {
  try {
    parseFixtures(document, 'test.json');
  } catch (error) {
    assert.ok(error instanceof FixtureError, String(error));
    assert.match(error.message, /^invalid core simulator data in test\.json: /);
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`);
  }
  assert.fail('expected a FixtureError');
}

describe('core simulator data files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coregate-core-fixtures-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts the demo data set and generated customers, written out as a file', () => {
    const customers = [
      ...DEMO_CUSTOMERS,
      generatedCustomer(100_000)!,
      generatedCustomer(999_999)!,
      generatedCustomer(400_048)!,
    ];
    const directory = parseFixtures(JSON.parse(JSON.stringify({ customers })));
    assert.deepEqual(directory.byKey('C-1001'), DEMO_CUSTOMERS[0]);
    assert.equal(directory.byKey('C-1005')?.accounts.length, 0);
    assert.equal(
      directory.byDemographics({ socialSecurityNumber: '123456789', accountNumber: '70001234', birthDay: '1980-04-12' })
        ?.customerKey,
      'C-1001',
    );
    assert.equal(
      directory.byDemographics({
        socialSecurityNumber: '123-45-6789',
        accountNumber: '70001234',
        birthDay: '04/12/1980',
      })?.customerKey,
      'C-1001',
    );
    assert.equal(directory.byKey('C-123456'), undefined, 'a file serves exactly its customers');
  });

  it('accepts an empty customer list', () => {
    assert.equal(parseFixtures({ customers: [] }).byKey('C-1001'), undefined);
  });

  it('rejects a document that is not {"customers": [...]}', () => {
    assert.deepEqual(problemsOf([]), ['(top level): expected an object {"customers": [...]}, got an array']);
    assert.deepEqual(problemsOf({}), ['customers: missing']);
    assert.deepEqual(problemsOf({ customers: {}, extra: 1 }), [
      'extra: unknown field (expected only "customers")',
      'customers: expected an array, got an object',
    ]);
  });

  it('names the customer index and the field of each problem with a customer', () => {
    const problems = problemsOf({
      customers: [
        customer(),
        customer({ customerKey: 'C-2', socialSecurityNumber: '12345', birthDay: '1990-02-30', nickname: 'x' }),
        customer({ customerKey: 7, accountNumber: '' }),
        (({ accounts: _accounts, ...rest }) => rest)(customer({ customerKey: 'C-4' })),
        'not a customer',
      ],
    });
    assert.deepEqual(problems, [
      'customers[1].nickname: unknown field',
      'customers[1].socialSecurityNumber: expected 9 digits, optionally as 123-45-6789',
      'customers[1].birthDay: expected a real date as YYYY-MM-DD',
      'customers[2].customerKey: expected a string, got a number',
      'customers[2].accountNumber: expected a non-empty string without surrounding spaces',
      'customers[3].accounts: missing (use [] for a customer without accounts)',
      'customers[4]: expected a customer object, got a string',
    ]);
  });

  it('never echoes a social security number it rejects', () => {
    const error = (() => {
      try {
        parseFixtures({ customers: [customer({ socialSecurityNumber: '987-65-432' })] });
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    assert.ok(error);
    assert.ok(!error.message.includes('987-65-432'));
  });

  it('names the account index and field: missing, wrong type, bad date, unknown field', () => {
    const broken = record({
      interestRate: '4.25',
      originationDate: '2019-05-01',
      isDefault: 'yes',
      type: 'DD',
      maturityDate: '2019-13-01T00:00:00',
      color: 'red',
    });
    delete broken.guid;
    const problems = problemsOf({ customers: [customer({ accounts: [record(), broken, 42] })] });
    assert.deepEqual(problems, [
      'customers[0].accounts[1].guid: missing',
      'customers[0].accounts[1].type: expected a single letter',
      'customers[0].accounts[1].interestRate: expected a number, got a string',
      'customers[0].accounts[1].originationDate: expected a date-time without zone, YYYY-MM-DDTHH:mm:ss (0001-01-01T00:00:00 for no date)',
      'customers[0].accounts[1].maturityDate: expected a date-time without zone, YYYY-MM-DDTHH:mm:ss (0001-01-01T00:00:00 for no date)',
      'customers[0].accounts[1].isDefault: expected a boolean, got a string',
      'customers[0].accounts[1].color: unknown field',
      'customers[0].accounts[2]: expected an account record object, got a number',
    ]);
  });

  it('accepts the minimum date-time as "no date" and rejects a zone', () => {
    assert.doesNotThrow(() =>
      parseFixtures({
        customers: [customer({ accounts: [record({ nextPaymentDate: NO_DATE, maturityDate: NO_DATE })] })],
      }),
    );
    assert.deepEqual(
      problemsOf({ customers: [customer({ accounts: [record({ originationDate: '2019-05-01T00:00:00Z' })] })] }),
      [
        'customers[0].accounts[0].originationDate: expected a date-time without zone, YYYY-MM-DDTHH:mm:ss (0001-01-01T00:00:00 for no date)',
      ],
    );
  });

  it('rejects a duplicate customerKey and duplicate demographics, naming both customers', () => {
    const problems = problemsOf({
      customers: [
        customer(),
        customer({ socialSecurityNumber: '999-99-9999' }),
        customer({ customerKey: 'C-3', socialSecurityNumber: '111223333' }),
      ],
    });
    assert.deepEqual(problems, [
      'customers[1].customerKey: duplicate customerKey "C-1" (first in customers[0])',
      'customers[2]: same socialSecurityNumber, accountNumber and birthDay as customers[0]: demographics must identify one customer',
    ]);
  });

  it('loads a file, and names the file when it cannot', async () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ customers: [customer()] }));
    assert.equal((await loadFixtureFile(good)).byKey('C-1')?.accounts.length, 1);

    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, '{"customers": [');
    await assert.rejects(
      loadFixtureFile(notJson),
      (error: Error) =>
        error instanceof FixtureError && error.message.includes(notJson) && /not valid JSON/.test(error.message),
    );

    const missing = join(dir, 'missing.json');
    await assert.rejects(
      loadFixtureFile(missing),
      (error: Error) => error instanceof FixtureError && error.message.includes('cannot read: ENOENT'),
    );

    const invalid = join(dir, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ customers: [customer({ birthDay: '31/01/1990' })] }));
    await assert.rejects(
      loadFixtureFile(invalid),
      /invalid\.json: customers\[0\]\.birthDay: expected a real date as YYYY-MM-DD/,
    );
  });
});
