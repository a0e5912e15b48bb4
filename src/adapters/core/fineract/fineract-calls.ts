/**
 * The Fineract calls the connector makes, these and no others (docs/cores/fineract.md#calls):
 * each as the path sent and the template that names it in messages and log lines. Ids are
 * decimal strings checked before they get here (`FINERACT_ID`); an external id is
 * percent-encoded as one path segment.
 */
import type { FineractRequest } from './fineract-http.js';

export const calls = {
  search: (body: string): FineractRequest => ({
    method: 'POST',
    path: '/api/v2/clients/search',
    template: 'POST /v2/clients/search',
    body,
  }),
  /** Every release: exact match on identifiers' document keys; the SSN is in this call's query string. */
  identifierSearch: (text: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/search?${new URLSearchParams({ query: text, resource: 'clientIdentifiers', exactMatch: 'true' }).toString()}`,
    template: 'GET /v1/search',
  }),
  identifiers: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/${id}/identifiers`,
    template: 'GET /v1/clients/{id}/identifiers',
  }),
  client: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/${id}`,
    template: 'GET /v1/clients/{id}',
  }),
  clientByExternalId: (externalId: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/external-id/${encodeURIComponent(externalId)}`,
    template: 'GET /v1/clients/external-id/{externalId}',
  }),
  accounts: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/clients/${id}/accounts`,
    template: 'GET /v1/clients/{id}/accounts',
  }),
  /** Without `associations=transactions`: a long history would not fit the answer size limit. */
  savings: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/savingsaccounts/${id}`,
    template: 'GET /v1/savingsaccounts/{id}',
  }),
  /**
   * One page of a deposit type 100 account's interest postings (type 3) valued in `year`. Fineract's
   * `offset` is a page number, not a row count: it is handed to `PageRequest.of(page, size)`.
   */
  savingsInterestPostings: (id: string, year: number, page: number, pageSize: number): FineractRequest =>
    calls.savingsTransactions(id, { fromDate: `${year}-01-01`, toDate: `${year}-12-31`, types: '3' }, page, pageSize),
  /**
   * One page of a deposit type 100 account's transactions of the types that move money, valued
   * `fromDate`..`toDate` (inclusive), in Fineract's default order (value date, creation, id, all
   * descending). `offset` is a page number, as for the interest postings.
   */
  savingsTransactions: (
    id: string,
    window: { readonly fromDate: string; readonly toDate: string; readonly types: string },
    page: number,
    pageSize: number,
  ): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/savingsaccounts/${id}/transactions/search?${new URLSearchParams({
      fromDate: window.fromDate,
      toDate: window.toDate,
      dateFormat: 'yyyy-MM-dd',
      locale: 'en',
      types: window.types,
      offset: String(page),
      limit: String(pageSize),
    }).toString()}`,
    template: 'GET /v1/savingsaccounts/{id}/transactions/search',
  }),
  fixedDeposit: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/fixeddepositaccounts/${id}?associations=transactions`,
    template: 'GET /v1/fixeddepositaccounts/{id}',
  }),
  recurringDeposit: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/recurringdepositaccounts/${id}?associations=transactions`,
    template: 'GET /v1/recurringdepositaccounts/{id}',
  }),
  loan: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/loans/${id}?associations=repaymentSchedule,transactions`,
    template: 'GET /v1/loans/{id}',
  }),
  /** A loan with its transactions only, for the transactions listing (Fineract does not page them). */
  loanTransactions: (id: string): FineractRequest => ({
    method: 'GET',
    path: `/api/v1/loans/${id}?associations=transactions`,
    template: 'GET /v1/loans/{id}',
  }),
  health: (): FineractRequest => ({ method: 'GET', path: '/actuator/health', template: 'GET /actuator/health' }),
} as const;

/**
 * Readiness's authenticated read: client 0, which no Fineract holds (ids start at 1). Fineract
 * checks the tenant, the user and `READ_CLIENT` before it looks, so its own 404 proves all
 * three, at the cost of one primary-key lookup.
 */
export const PROBE_CLIENT_ID = '0';
