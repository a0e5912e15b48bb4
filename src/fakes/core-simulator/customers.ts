/**
 * The simulator's customers and how it finds them: by customer key, or by
 * demographics compared in normalised form (SSN digits only, ISO birth date;
 * docs/behaviour.md#core-simulator).
 */
import type { AccountRecord } from '../../domain/account.js';

/** A customer of the simulated core, as in a fixture file (docs/core-protocol.md#data-file---data-file). */
export interface CoreCustomer {
  readonly customerKey: string;
  /** As written in the data (dashes allowed); compared by its digits. */
  readonly socialSecurityNumber: string;
  readonly accountNumber: string;
  /** `YYYY-MM-DD`. */
  readonly birthDay: string;
  readonly accounts: readonly AccountRecord[];
}

export interface Demographics {
  readonly socialSecurityNumber: string;
  readonly accountNumber: string;
  readonly birthDay: string;
}

/** Where the simulator looks customers up. */
export interface CustomerDirectory {
  byKey(customerKey: string): CoreCustomer | undefined;
  byDemographics(demographics: Demographics): CoreCustomer | undefined;
  /** One line for the start-up log. */
  readonly description: string;
}

/** SSN/TIN digits only: `123-45-6789` → `123456789`. */
export function normaliseSsn(value: string): string {
  return value.replace(/\D/g, '');
}

/** `YYYY-MM-DD` stays; `MM/DD/YYYY` becomes `YYYY-MM-DD`; anything else is returned trimmed, to match nothing. */
export function comparableBirthDay(value: string): string {
  const trimmed = value.trim();
  const us = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(trimmed);
  return us ? `${us[3]}-${us[1]}-${us[2]}` : trimmed;
}

/** The normalised form demographics are compared in. */
export function demographicsKey(demographics: Demographics): string {
  return `${normaliseSsn(demographics.socialSecurityNumber)}|${demographics.accountNumber.trim()}|${comparableBirthDay(demographics.birthDay)}`;
}

/** A fixed list of customers, indexed both ways. Keys and demographics must be unique (the fixture loader checks). */
export class ListDirectory implements CustomerDirectory {
  private readonly keys = new Map<string, CoreCustomer>();
  private readonly people = new Map<string, CoreCustomer>();
  readonly description: string;

  constructor(customers: readonly CoreCustomer[], description = `${customers.length} customers`) {
    for (const customer of customers) {
      this.keys.set(customer.customerKey, customer);
      this.people.set(demographicsKey(customer), customer);
    }
    this.description = description;
  }

  byKey(customerKey: string): CoreCustomer | undefined {
    return this.keys.get(customerKey);
  }

  byDemographics(demographics: Demographics): CoreCustomer | undefined {
    return this.people.get(demographicsKey(demographics));
  }
}

/** Asks each directory in turn. */
export class CombinedDirectory implements CustomerDirectory {
  readonly description: string;
  constructor(private readonly directories: readonly CustomerDirectory[]) {
    this.description = directories.map((directory) => directory.description).join(' + ');
  }
  byKey(customerKey: string): CoreCustomer | undefined {
    for (const directory of this.directories) {
      const found = directory.byKey(customerKey);
      if (found) return found;
    }
    return undefined;
  }
  byDemographics(demographics: Demographics): CoreCustomer | undefined {
    for (const directory of this.directories) {
      const found = directory.byDemographics(demographics);
      if (found) return found;
    }
    return undefined;
  }
}
