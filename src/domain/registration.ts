/**
 * Validation and normalisation of a session registration body (Form A and Form B,
 * docs/behaviour.md#registration-forms, docs/behaviour.md#registration-validation): the one
 * check of that body (the route's schema only documents its shape). Pure: the clock's "today"
 * is a parameter. Problems name the field and never repeat what was sent, since it may be
 * personal data.
 */
import type { FieldProblem } from './errors.js';
import { isPlainObject } from './json.js';
import { isCalendarDate } from './calendar-date.js';

/** Who a registration names; also what a core session is started for (ports/core-connector.ts). */
export type RegistrationSubject =
  | {
      readonly kind: 'demographics';
      /** 9 digits, no dashes. */
      readonly socialSecurityNumber: string;
      readonly accountNumber: string;
      /** `YYYY-MM-DD`. */
      readonly birthDay: string;
    }
  | { readonly kind: 'customerKey'; readonly customerKey: string };

export interface Registration {
  readonly customerId: string;
  readonly subject: RegistrationSubject;
}

export type RegistrationParse = { ok: true; registration: Registration } | { ok: false; problems: FieldProblem[] };

/** Printable ASCII without spaces: ids end up in URLs, logs and keys. */
export const CUSTOMER_ID_PATTERN = '^[\\x21-\\x7E]{1,128}$';
const CUSTOMER_ID = new RegExp(CUSTOMER_ID_PATTERN);
/**
 * As long as a core's customer keys may be (docs/core-protocol.md: 1 to 128 visible
 * ASCII characters): every customerKey coregate answers must be accepted back in Form B.
 */
const CUSTOMER_KEY = /^[\x21-\x7E]{1,128}$/;
const ACCOUNT_NUMBER = /^[A-Za-z0-9][A-Za-z0-9 -]{0,33}$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const US_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;

/** SSN or TIN: 9 digits, dashes allowed anywhere between them. */
export function normaliseSocialSecurityNumber(value: string): string | undefined {
  if (!/^[0-9-]+$/.test(value)) return undefined;
  const digits = value.replaceAll('-', '');
  return digits.length === 9 ? digits : undefined;
}

/** `YYYY-MM-DD` or `MM/DD/YYYY`, a real calendar date after 1900 and before `today`. */
export function normaliseBirthDay(value: string, today: Date): string | undefined {
  let year: number, month: number, day: number;
  const iso = ISO_DATE.exec(value);
  const us = US_DATE.exec(value);
  if (iso) [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (us) [month, day, year] = [Number(us[1]), Number(us[2]), Number(us[3])];
  else return undefined;
  if (!isCalendarDate(year, month, day)) return undefined;
  if (
    year < 1900 ||
    Date.UTC(year, month - 1, day) >= Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())
  )
    return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function checkKeys(
  object: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  problems: FieldProblem[],
): void {
  for (const key of Object.keys(object)) {
    // A field name is echoed only if it looks like one: a value typed in the wrong place is not repeated.
    const name = /^[A-Za-z_][A-Za-z_]{0,39}$/.test(key) ? key : '(unknown field)';
    if (!allowed.includes(key)) problems.push({ path: `${path}/${name}`, message: 'is not allowed' });
  }
}

function stringField(
  object: Record<string, unknown>,
  name: string,
  path: string,
  problems: FieldProblem[],
  trim = true,
): string | undefined {
  const value = object[name];
  if (value === undefined) {
    problems.push({ path: `${path}/${name}`, message: 'is required' });
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.push({ path: `${path}/${name}`, message: 'must be a string' });
    return undefined;
  }
  return trim ? value.trim() : value;
}

export function parseRegistration(body: unknown, today: Date): RegistrationParse {
  const problems: FieldProblem[] = [];
  if (!isPlainObject(body)) return { ok: false, problems: [{ path: '/', message: 'must be a JSON object' }] };
  checkKeys(body, ['demographics', 'customer', 'registration'], '', problems);

  let customerId: string | undefined;
  const registration = body['registration'];
  if (registration === undefined) problems.push({ path: '/registration', message: 'is required' });
  else if (!isPlainObject(registration)) problems.push({ path: '/registration', message: 'must be an object' });
  else {
    checkKeys(registration, ['customerId'], '/registration', problems);
    // An identifier is taken exactly as given, never trimmed: the same rule as
    // GET /core/accounts?customerId=, where blanks around it are refused too (docs/behaviour.md#registration-validation).
    customerId = stringField(registration, 'customerId', '/registration', problems, false);
    if (customerId !== undefined && !CUSTOMER_ID.test(customerId)) {
      problems.push({
        path: '/registration/customerId',
        message: 'must be 1 to 128 printable characters without spaces',
      });
      customerId = undefined;
    }
  }

  const hasDemographics = body['demographics'] !== undefined;
  const hasCustomer = body['customer'] !== undefined;
  let subject: RegistrationSubject | undefined;
  if (hasDemographics === hasCustomer) {
    problems.push({ path: '/', message: 'exactly one of demographics or customer is required' });
  } else if (hasDemographics) {
    const demographics = body['demographics'];
    if (!isPlainObject(demographics)) problems.push({ path: '/demographics', message: 'must be an object' });
    else {
      checkKeys(demographics, ['socialSecurityNumber', 'accountNumber', 'birthDay'], '/demographics', problems);
      const ssnText = stringField(demographics, 'socialSecurityNumber', '/demographics', problems);
      const accountNumber = stringField(demographics, 'accountNumber', '/demographics', problems);
      const birthDayText = stringField(demographics, 'birthDay', '/demographics', problems);
      const socialSecurityNumber = ssnText === undefined ? undefined : normaliseSocialSecurityNumber(ssnText);
      if (ssnText !== undefined && socialSecurityNumber === undefined) {
        problems.push({ path: '/demographics/socialSecurityNumber', message: 'must be 9 digits (dashes allowed)' });
      }
      if (accountNumber !== undefined && !ACCOUNT_NUMBER.test(accountNumber)) {
        problems.push({ path: '/demographics/accountNumber', message: 'must be 1 to 34 letters or digits' });
      }
      const birthDay = birthDayText === undefined ? undefined : normaliseBirthDay(birthDayText, today);
      if (birthDayText !== undefined && birthDay === undefined) {
        problems.push({
          path: '/demographics/birthDay',
          message: 'must be a real past date as YYYY-MM-DD or MM/DD/YYYY',
        });
      }
      if (socialSecurityNumber && accountNumber && ACCOUNT_NUMBER.test(accountNumber) && birthDay) {
        subject = { kind: 'demographics', socialSecurityNumber, accountNumber, birthDay };
      }
    }
  } else {
    const customer = body['customer'];
    if (!isPlainObject(customer)) problems.push({ path: '/customer', message: 'must be an object' });
    else {
      checkKeys(customer, ['customerKey'], '/customer', problems);
      const customerKey = stringField(customer, 'customerKey', '/customer', problems);
      if (customerKey !== undefined && !CUSTOMER_KEY.test(customerKey)) {
        problems.push({
          path: '/customer/customerKey',
          message: 'must be 1 to 128 printable characters without spaces',
        });
      } else if (customerKey !== undefined) subject = { kind: 'customerKey', customerKey };
    }
  }

  if (problems.length > 0 || customerId === undefined || subject === undefined) {
    return { ok: false, problems: problems.length > 0 ? problems : [{ path: '/', message: 'is invalid' }] };
  }
  return { ok: true, registration: { customerId, subject } };
}
