/**
 * Requests to `GET /core/transactions` and `/core/transactions/sync` as a platform sends
 * them, and a registered demo customer to read.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TransactionRecord } from '../../../src/domain/transaction.js';
import type { Harness } from '../../support/harness.js';
import { ADA, assertSuccess, formB, postSession, uniqueId } from '../gateway/gateway-requests.js';

/** The demo customer's checking account: over 400 transactions in any 90 days. */
export const CHECKING = ADA.accounts.find((account) => account.type === 'D')!.id;
/** Another account of the same customer. */
export const SAVINGS = ADA.accounts.find((account) => account.type === 'S')!.id;

export interface Page {
  readonly transactions: TransactionRecord[];
  readonly nextCursor: string | null;
}

export interface SyncData {
  readonly added: TransactionRecord[];
  readonly modified: TransactionRecord[];
  readonly removed: { id: string }[];
  readonly nextCursor: string;
  readonly hasMore: boolean;
}

export interface Customer {
  /** Replaced by {@link freshToken} after the clock moved past its lifetime. */
  token: string;
  readonly client: { id: string; secret: string };
  readonly platform: string;
  readonly customerId: string;
}

/** A new client of `platform` and a new customerId of it registered for `customerKey`. */
export async function registeredCustomer(
  h: Harness,
  platform: string,
  customerKey = ADA.customerKey,
): Promise<Customer> {
  const client = await h.client({ platform });
  const token = await h.token(client);
  const customerId = uniqueId('tx');
  assertSuccess(await postSession(h, { token }, formB(customerId, customerKey)), 'registration');
  return { token, client, platform, customerId };
}

/** A new access token for the customer's client, after the harness's clock moved on. */
export async function freshToken(h: Harness, customer: Customer): Promise<void> {
  customer.token = await h.token(customer.client);
}

function query(parameters: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) search.set(name, String(value));
  return search.toString();
}

export function getTransactions(
  h: Harness,
  customer: Customer,
  parameters: Record<string, string | number | undefined>,
): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'GET',
    url: `/core/transactions?${query({ customerId: customer.customerId, ...parameters })}`,
    headers: { authorization: `Bearer ${customer.token}` },
  });
}

export function syncTransactions(
  h: Harness,
  customer: Customer,
  parameters: Record<string, string | number | undefined>,
): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'GET',
    url: `/core/transactions/sync?${query({ customerId: customer.customerId, ...parameters })}`,
    headers: { authorization: `Bearer ${customer.token}` },
  });
}

/** Every page from the first, following `nextCursor`: the transactions in order. */
export async function allPages(
  h: Harness,
  customer: Customer,
  parameters: Record<string, string | number | undefined>,
): Promise<TransactionRecord[]> {
  const all: TransactionRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const page = assertSuccess<Page>(await getTransactions(h, customer, { ...parameters, cursor }), 'a page');
    all.push(...page.transactions);
    if (page.nextCursor === null) return all;
    cursor = page.nextCursor;
  }
  return assert.fail('more than 100 pages');
}

/** Syncs from `cursor` until `hasMore` is false: every change, and the last cursor. */
export async function syncAll(
  h: Harness,
  customer: Customer,
  accountId: string,
  cursor?: string,
  count?: number,
): Promise<{
  added: TransactionRecord[];
  modified: TransactionRecord[];
  removed: string[];
  cursor: string;
  pages: number;
}> {
  const added: TransactionRecord[] = [];
  const modified: TransactionRecord[] = [];
  const removed: string[] = [];
  let next = cursor;
  for (let pages = 1; pages < 100; pages += 1) {
    const data = assertSuccess<SyncData>(
      await syncTransactions(h, customer, { accountId, cursor: next, count }),
      'sync',
    );
    added.push(...data.added);
    modified.push(...data.modified);
    removed.push(...data.removed.map((item) => item.id));
    next = data.nextCursor;
    if (!data.hasMore) return { added, modified, removed, cursor: next, pages };
  }
  return assert.fail('more than 100 sync pages');
}
