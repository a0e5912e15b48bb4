/**
 * An institution: one bank and its core banking system (docs/behaviour.md#institutions). coregate
 * serves several from one deployment; every client acts for exactly one, and
 * associations are kept apart per institution.
 */

/** The institution that always exists; its core comes from CORE_URL / COREGATE_CORE_API_KEY / COREGATE_CORE_TIMEOUT_MS. */
export const DEFAULT_INSTITUTION = 'default';

/** Institution ids end up in keys, metric labels and logs: 1–64 of `[a-z0-9-]` (docs/behaviour.md#institutions). */
const INSTITUTION_ID_PATTERN = '^[a-z0-9-]{1,64}$';
const INSTITUTION_ID = new RegExp(INSTITUTION_ID_PATTERN);

export function isInstitutionId(value: string): boolean {
  return INSTITUTION_ID.test(value);
}

/** Where the institution's core settings come from: the configuration (`default`) or the database (every other). */
export type CoreSettingsSource = 'config' | 'database';

/** An institution as the operator sees it: never its API key, only whether it has one. */
export interface Institution {
  readonly id: string;
  readonly name: string;
  /** Base URL of its core; `undefined` for `default` on the built-in simulator. */
  readonly coreUrl: string | undefined;
  readonly hasApiKey: boolean;
  /** Which protocol its core speaks: the reference core protocol or Apache Fineract's API. */
  readonly coreKind: CoreKind;
  /** Its Fineract settings; `undefined` unless `coreKind` is `fineract`. */
  readonly fineract: FineractSettings | undefined;
  /** Whether it has a core service user (`username:password`, Fineract); never the credentials themselves. */
  readonly hasCredentials: boolean;
  /** PEM files for mutual TLS to the core: the CA to trust, the client certificate and its key. */
  readonly coreCaFile: string | undefined;
  readonly coreCertFile: string | undefined;
  readonly coreKeyFile: string | undefined;
  readonly coreTimeoutMs: number | undefined;
  readonly enabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** An institution as stored, with its API key and service user in clear (in memory only; sealed at rest). */
export interface InstitutionRecord extends Omit<Institution, 'hasApiKey' | 'hasCredentials'> {
  readonly coreApiKey: string | undefined;
  readonly coreCredentials: CoreCredentials | undefined;
}

/**
 * Which protocol an institution's core speaks: `coregate`, the reference core protocol
 * (docs/core-protocol.md), or `fineract`, Apache Fineract's back-office REST API
 * (docs/cores/fineract.md), spoken by the built-in connector.
 */
export const CORE_KINDS = ['coregate', 'fineract'] as const;
export type CoreKind = (typeof CORE_KINDS)[number];

/** How a Fineract client becomes a customer key: its numeric id, or its `externalId`. */
export const FINERACT_CUSTOMER_KEY_MODES = ['id', 'external-id'] as const;
export type FineractCustomerKeyMode = (typeof FINERACT_CUSTOMER_KEY_MODES)[number];

/**
 * How Form A finds a Fineract client by SSN (docs/cores/fineract.md#releases):
 * `client-search` — `POST /v2/clients/search`, which matches identifiers only on releases
 * after 1.10 (FINERACT-2073); `identifier-search` — `GET /v1/search` over client
 * identifiers, in every release, with the SSN in the query string of that call; `off` — no
 * Form A, customers register by key only.
 */
export const FINERACT_SSN_LOOKUP_MODES = ['client-search', 'identifier-search', 'off'] as const;
export type FineractSsnLookupMode = (typeof FINERACT_SSN_LOOKUP_MODES)[number];

/** An institution's Fineract settings (never its credentials: those are sealed apart). */
export interface FineractSettings {
  /** Sent as `Fineract-Platform-TenantId`. */
  readonly tenant: string;
  /** The client identifier document type that holds the social security number. */
  readonly ssnDocumentType: string;
  readonly customerKey: FineractCustomerKeyMode;
  readonly ssnLookup: FineractSsnLookupMode;
  /** Lifetime of the delegate reference IDs coregate makes for Fineract sessions. */
  readonly sessionTtlSeconds: number;
}

export const FINERACT_DEFAULTS: FineractSettings = Object.freeze({
  tenant: 'default',
  ssnDocumentType: 'SSN',
  customerKey: 'id',
  ssnLookup: 'client-search',
  sessionTtlSeconds: 900,
});

/** A core's service user (`username:password`), in memory only; sealed at rest. */
export interface CoreCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * `username:password` on one line, as an operator writes it in a file (RFC 7617 §2: the
 * user-id holds no colon, the password may): split at the first colon; `undefined` when
 * there is none, either part is empty, or the text holds a control character.
 */
export function parseCoreCredentials(text: string): CoreCredentials | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(text)) return undefined;
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) return undefined;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * An institution's core as a transport is built from it: the fields of its record that say
 * which core, how to reach it and with what. `default` gets them from the configuration
 * (src/config/default-institution.ts), every other institution from its stored record.
 */
export type InstitutionCore = Pick<
  InstitutionRecord,
  | 'coreUrl'
  | 'coreApiKey'
  | 'coreCaFile'
  | 'coreCertFile'
  | 'coreKeyFile'
  | 'coreTimeoutMs'
  | 'coreKind'
  | 'fineract'
  | 'coreCredentials'
>;
