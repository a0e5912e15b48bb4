/**
 * Loading the simulator's data from a JSON file (docs/core-protocol.md#data-file---data-file):
 * `{"customers": [{customerKey, socialSecurityNumber, accountNumber, birthDay, accounts: [...]}]}`.
 * Everything is checked before the simulator starts, and every problem names the
 * customer index and the field, so a bank engineer can fix the file in one go.
 */
import { readFile } from 'node:fs/promises';
import type { AccountRecord } from '../../domain/account.js';
import {
  describeProblems,
  isIsoDate,
  jsonType,
  readAccountRecord,
  safeName,
  type Problem,
} from '../../adapters/core/account-record.js';
import { isPlainObject } from '../../domain/json.js';
import { demographicsKey, ListDirectory, type CoreCustomer } from './customers.js';

/** The data file is not what the simulator can serve. `problems` lists every field at fault. */
export class FixtureError extends Error {
  constructor(
    readonly source: string,
    readonly problems: readonly Problem[],
  ) {
    super(`invalid core simulator data in ${source}: ${describeProblems(problems)}`);
    this.name = 'FixtureError';
  }
}

const CUSTOMER_FIELDS = new Set(['customerKey', 'socialSecurityNumber', 'accountNumber', 'birthDay', 'accounts']);

function requiredString(
  value: Record<string, unknown>,
  field: string,
  path: string,
  problems: Problem[],
): string | undefined {
  if (!Object.hasOwn(value, field)) {
    problems.push({ path: `${path}.${field}`, message: 'missing' });
    return undefined;
  }
  const found = value[field];
  if (typeof found !== 'string') {
    problems.push({ path: `${path}.${field}`, message: `expected a string, got ${jsonType(found)}` });
    return undefined;
  }
  return found;
}

function readCustomer(value: unknown, path: string, problems: Problem[]): CoreCustomer | undefined {
  if (!isPlainObject(value)) {
    problems.push({ path, message: `expected a customer object, got ${jsonType(value)}` });
    return undefined;
  }
  const before = problems.length;
  for (const name of Object.keys(value)) {
    if (!CUSTOMER_FIELDS.has(name)) problems.push({ path: `${path}.${safeName(name)}`, message: 'unknown field' });
  }
  const customerKey = requiredString(value, 'customerKey', path, problems);
  if (customerKey !== undefined && !/^[\x21-\x7e]{1,128}$/.test(customerKey)) {
    problems.push({
      path: `${path}.customerKey`,
      message: 'expected 1 to 128 printable ASCII characters without spaces',
    });
  }
  const socialSecurityNumber = requiredString(value, 'socialSecurityNumber', path, problems);
  if (socialSecurityNumber !== undefined && !/^(\d{9}|\d{3}-\d{2}-\d{4})$/.test(socialSecurityNumber)) {
    // The value is personal data: say what is expected, never echo it.
    problems.push({ path: `${path}.socialSecurityNumber`, message: 'expected 9 digits, optionally as 123-45-6789' });
  }
  const accountNumber = requiredString(value, 'accountNumber', path, problems);
  if (accountNumber !== undefined && (accountNumber.trim() === '' || accountNumber.trim() !== accountNumber)) {
    problems.push({ path: `${path}.accountNumber`, message: 'expected a non-empty string without surrounding spaces' });
  }
  const birthDay = requiredString(value, 'birthDay', path, problems);
  if (birthDay !== undefined && !isIsoDate(birthDay)) {
    problems.push({ path: `${path}.birthDay`, message: 'expected a real date as YYYY-MM-DD' });
  }
  const accounts: AccountRecord[] = [];
  if (!Object.hasOwn(value, 'accounts')) {
    problems.push({ path: `${path}.accounts`, message: 'missing (use [] for a customer without accounts)' });
  } else if (!Array.isArray(value.accounts)) {
    problems.push({ path: `${path}.accounts`, message: `expected an array, got ${jsonType(value.accounts)}` });
  } else {
    value.accounts.forEach((item: unknown, index: number) => {
      const record = readAccountRecord(item, `${path}.accounts[${index}]`, problems, 'reject');
      if (record) accounts.push(Object.freeze(record));
    });
  }
  if (problems.length !== before) return undefined;
  return Object.freeze({
    customerKey: customerKey!,
    socialSecurityNumber: socialSecurityNumber!,
    accountNumber: accountNumber!,
    birthDay: birthDay!,
    accounts: Object.freeze(accounts),
  });
}

/** Checks a parsed data document and indexes its customers. Throws {@link FixtureError}. */
export function parseFixtures(document: unknown, source = 'the data document'): ListDirectory {
  const problems: Problem[] = [];
  if (!isPlainObject(document))
    throw new FixtureError(source, [
      { path: '(top level)', message: `expected an object {"customers": [...]}, got ${jsonType(document)}` },
    ]);
  for (const name of Object.keys(document)) {
    if (name !== 'customers')
      problems.push({ path: safeName(name), message: 'unknown field (expected only "customers")' });
  }
  if (!Array.isArray(document.customers)) {
    problems.push({
      path: 'customers',
      message: Object.hasOwn(document, 'customers')
        ? `expected an array, got ${jsonType(document.customers)}`
        : 'missing',
    });
    throw new FixtureError(source, problems);
  }
  const customers: CoreCustomer[] = [];
  const keys = new Map<string, number>();
  const people = new Map<string, number>();
  document.customers.forEach((item: unknown, index: number) => {
    const path = `customers[${index}]`;
    const found = readCustomer(item, path, problems);
    if (!found) return;
    const sameKey = keys.get(found.customerKey);
    if (sameKey !== undefined) {
      problems.push({
        path: `${path}.customerKey`,
        message: `duplicate customerKey "${found.customerKey}" (first in customers[${sameKey}])`,
      });
      return;
    }
    const samePerson = people.get(demographicsKey(found));
    if (samePerson !== undefined) {
      problems.push({
        path,
        message: `same socialSecurityNumber, accountNumber and birthDay as customers[${samePerson}]: demographics must identify one customer`,
      });
      return;
    }
    keys.set(found.customerKey, index);
    people.set(demographicsKey(found), index);
    customers.push(found);
  });
  if (problems.length > 0) throw new FixtureError(source, problems);
  return new ListDirectory(customers, `${customers.length} customers from ${source}`);
}

/** Reads and checks a data file. Throws {@link FixtureError} naming the file and every problem. */
export async function loadFixtureFile(path: string): Promise<ListDirectory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FixtureError(path, [
      { path: '(file)', message: `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` },
    ]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(path, [{ path: '(file)', message: `not valid JSON: ${(error as Error).message}` }]);
  }
  return parseFixtures(document, path);
}
