/**
 * The shapes coregate sends and accepts, as runtime field lists from which the
 * TypeScript types derive. The lists are what the drift test compares with
 * `docs/openapi.json` (the document generated from the server's route schemas),
 * so a field renamed or retyped on the server fails a test instead of silently
 * leaving this client behind.
 */

/** JSON types a field can have, as OpenAPI names them. */
export type FieldKind = 'string' | 'number' | 'boolean';

type KindType<K extends FieldKind> = K extends 'string' ? string : K extends 'number' ? number : boolean;

/** An object type with one readonly property per entry of a field list. */
type FromFields<F extends Readonly<Record<string, FieldKind>>> = { readonly [K in keyof F]: KindType<F[K]> };

/**
 * The fields of an account record (spec §2.3), exactly as `GET /core/accounts`
 * answers them: every field is always present. Dates are `YYYY-MM-DDTHH:mm:ss`
 * strings; `interestRate` is a fraction (0.0425 is 4.25 %); the `receive*` flags
 * are one letter (`Y`/`N`).
 */
export const ACCOUNT_RECORD_FIELDS = Object.freeze({
  id: 'string',
  customerKey: 'string',
  guid: 'string',
  nickname: 'string',
  accountReferenceId: 'string',
  type: 'string',
  currentBalance: 'number',
  availableBalance: 'number',
  interestRate: 'number',
  accruedInterest: 'number',
  yearToDateInterest: 'number',
  paidYearToDateInterest: 'number',
  pastDueAmount: 'number',
  creditLimit: 'number',
  availableCredit: 'number',
  originationDate: 'string',
  nextPaymentDate: 'string',
  maturityDate: 'string',
  productCode: 'string',
  isDefault: 'boolean',
  hasCard: 'boolean',
  receiveEmailNotices: 'string',
  receiveEmailStatements: 'string',
  receivePaperNotices: 'string',
  receivePaperStatements: 'string',
  authorizationCode: 'string',
  originalBalance: 'number',
} as const satisfies Record<string, FieldKind>);

/** One account of a customer (spec §2.3). */
export type AccountRecord = FromFields<typeof ACCOUNT_RECORD_FIELDS>;

/** Registration Form A: the customer's demographics (never stored or logged by coregate). */
export const DEMOGRAPHICS_FIELDS = Object.freeze({
  /** SSN or TIN: 9 digits, dashes allowed. */
  socialSecurityNumber: 'string',
  accountNumber: 'string',
  /** `YYYY-MM-DD` or `MM/DD/YYYY`, a real past date. */
  birthDay: 'string',
} as const satisfies Record<string, FieldKind>);

export type Demographics = FromFields<typeof DEMOGRAPHICS_FIELDS>;

/** Registration Form B: the core's customer key. */
export const CUSTOMER_REFERENCE_FIELDS = Object.freeze({ customerKey: 'string' } as const satisfies Record<
  string,
  FieldKind
>);

export type CustomerReference = FromFields<typeof CUSTOMER_REFERENCE_FIELDS>;

/** The `registration` part of the wire body of `POST /core/sessions`. */
export const REGISTRATION_FIELDS = Object.freeze({ customerId: 'string' } as const satisfies Record<string, FieldKind>);

/**
 * What `registerCustomer` takes: your platform's customerId and exactly one of
 * `demographics` (Form A) or `customer` (Form B). The client sends it as the
 * wire body `{demographics | customer, registration: {customerId}}`.
 */
export type RegisterCustomerInput =
  | { readonly customerId: string; readonly demographics: Demographics; readonly customer?: never }
  | { readonly customerId: string; readonly customer: CustomerReference; readonly demographics?: never };

/** The wire body of `POST /core/sessions` (what `docs/openapi.json` describes). */
export type RegistrationBody =
  | { readonly demographics: Demographics; readonly registration: FromFields<typeof REGISTRATION_FIELDS> }
  | { readonly customer: CustomerReference; readonly registration: FromFields<typeof REGISTRATION_FIELDS> };

/** `data` of a successful registration. */
export const REGISTRATION_RESULT_FIELDS = Object.freeze({
  customerId: 'string',
  customerKey: 'string',
} as const satisfies Record<string, FieldKind>);

export type Registration = FromFields<typeof REGISTRATION_RESULT_FIELDS>;

/** `data` of `GET /core/sessions?customerId=` (CONTRACT §9). */
export const CUSTOMER_STATUS_FIELDS = Object.freeze({
  customerId: 'string',
  customerKey: 'string',
  status: 'string',
  registeredAt: 'string',
  updatedAt: 'string',
} as const satisfies Record<string, FieldKind>);

/** A registered customer as coregate holds it; `status` says whether calls can reach the core. */
export type CustomerStatus = Omit<FromFields<typeof CUSTOMER_STATUS_FIELDS>, 'status'> & {
  readonly status: 'active' | 'reregistration_required';
};

/** `data` of `DELETE /core/sessions?customerId=`. */
export interface Deregistration {
  readonly customerId: string;
}
