/**
 * `@coregate/client`: a typed client for coregate's platform API (CONTRACT §10).
 *
 * ```ts
 * const cg = new CoregateClient({ baseUrl, clientId, clientSecret });
 * await cg.registerCustomer({ customerId: 'c-1', customer: { customerKey: 'C-1001' } });
 * const accounts = await cg.listAccounts('c-1');
 * for await (const page of cg.transactions.list('c-1', accounts[0].id)) console.log(page.transactions.length);
 * const { added, modified, removed, nextCursor } = await cg.transactions.sync('c-1', accounts[0].id);
 * // Onboarding an existing customer base: 16 at a time, 429/503 waited out, one result per customer.
 * for await (const result of cg.registerCustomers(customers)) if (!result.ok) console.error(result.customerId, result.error.data['reason']);
 * // A bank's client: private_key_jwt and DPoP-bound tokens, no shared secret.
 * const bank = new CoregateClient({ baseUrl, clientId, privateKey, privateKeyId: 'k-2026', dpop: true });
 * ```
 */
export { CoregateClient, type CallOptions, type CoregateClientOptions } from './client.js';
export { CoregateError, type CoregateErrorInit } from './errors.js';
export type {
  BulkRegistrationItem,
  BulkRegistrationProgress,
  BulkRegistrationResult,
  RegisterCustomersOptions,
} from './bulk-registration.js';
export type { Jwk, PrivateKeyInput } from './proofs.js';
export type {
  SyncOptions,
  TransactionFilters,
  TransactionPage,
  TransactionRecord,
  Transactions,
  TransactionSync,
} from './transactions.js';
export {
  ACCOUNT_RECORD_FIELDS,
  CUSTOMER_REFERENCE_FIELDS,
  CUSTOMER_STATUS_FIELDS,
  DEMOGRAPHICS_FIELDS,
  REGISTRATION_FIELDS,
  REGISTRATION_RESULT_FIELDS,
  type AccountRecord,
  type CustomerReference,
  type CustomerStatus,
  type Demographics,
  type Deregistration,
  type FieldKind,
  type RegisterCustomerInput,
  type Registration,
  type RegistrationBody,
} from './schema.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhooks.js';
