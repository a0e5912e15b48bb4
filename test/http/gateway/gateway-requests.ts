/**
 * Requests to the gateway (`POST /core/sessions`, `GET /core/accounts`) as a
 * platform sends them, the envelope assertions (docs/behaviour.md#envelope), and
 * test doubles around the core: a counting connector wrapper, a clock that
 * follows the harness's, and a customer directory that can forget customers.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { CoreCustomer, CustomerDirectory, Demographics } from '../../../src/fakes/core-simulator/customers.js';
import { DEMO_CUSTOMERS, demoDirectory } from '../../../src/fakes/core-simulator/demo-data.js';
import type { AccountRecord } from '../../../src/domain/account.js';
import type { Clock } from '../../../src/ports/clock.js';
import type { CoreCallContext, CoreConnector, CoreSession } from '../../../src/ports/core-connector.js';
import type { Harness } from '../../support/harness.js';
import type { RegistrationSubject } from '../../../src/domain/registration.js';

/** The named demo customers (docs/core-protocol.md §7), by key. */
export function demoCustomer(customerKey: string): CoreCustomer {
  return (
    DEMO_CUSTOMERS.find((customer) => customer.customerKey === customerKey) ??
    assert.fail(`no demo customer ${customerKey}`)
  );
}
/** Three accounts. */
export const ADA = demoCustomer('C-1001');
/** Two accounts. */
export const BOB = demoCustomer('C-1002');
/** A customer of the bank without accounts. */
export const EVE = demoCustomer('C-1005');

/** `1980-04-12` → `04/12/1980`. */
export function usDate(iso: string): string {
  const [year, month, day] = iso.split('-');
  return `${month}/${day}/${year}`;
}

export interface FormAOptions {
  /** `dashes` (`123-45-6789`, as stored in the demo data) or `digits` (`123456789`). */
  readonly ssn?: 'dashes' | 'digits';
  /** `iso` (`1980-04-12`) or `us` (`04/12/1980`). */
  readonly birthDay?: 'iso' | 'us';
}

/** Form A for a demo customer (docs/behaviour.md#registration-forms). */
export function formA(customerId: string, customer: CoreCustomer = ADA, options: FormAOptions = {}) {
  const digits = customer.socialSecurityNumber.replaceAll('-', '');
  const dashed = `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
  return {
    demographics: {
      socialSecurityNumber: options.ssn === 'digits' ? digits : dashed,
      accountNumber: customer.accountNumber,
      birthDay: options.birthDay === 'us' ? usDate(customer.birthDay) : customer.birthDay,
    },
    registration: { customerId },
  };
}

/** Form B (docs/behaviour.md#registration-forms). */
export function formB(customerId: string, customerKey: string = ADA.customerKey) {
  return { customer: { customerKey }, registration: { customerId } };
}

export interface GatewayRequest {
  /** Sent as `Authorization: Bearer …` unless `authorization` is given. */
  readonly token?: string;
  readonly authorization?: string;
  /** Defaults to `application/json`; `null` sends none. */
  readonly contentType?: string | null;
  readonly headers?: Record<string, string>;
}

function headersOf(request: GatewayRequest, body: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers };
  const authorization = request.authorization ?? (request.token === undefined ? undefined : `Bearer ${request.token}`);
  if (authorization !== undefined) headers['authorization'] = authorization;
  const contentType = request.contentType === undefined ? (body ? 'application/json' : undefined) : request.contentType;
  if (contentType != null) headers['content-type'] = contentType;
  return headers;
}

/** `POST /core/sessions`; an object body is sent as JSON, a string or Buffer as is. */
export function postSession(h: Harness, request: GatewayRequest, body?: unknown): Promise<LightMyRequestResponse> {
  const payload =
    body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return h.app.inject({
    method: 'POST',
    url: '/core/sessions',
    headers: headersOf(request, payload !== undefined),
    ...(payload === undefined ? {} : { payload }),
  });
}

/** `GET /core/accounts?customerId=…`; `undefined` leaves the parameter out, a string[] repeats it. */
export function getAccounts(
  h: Harness,
  request: GatewayRequest,
  customerId?: string | string[],
): Promise<LightMyRequestResponse> {
  const ids = customerId === undefined ? [] : Array.isArray(customerId) ? customerId : [customerId];
  const query = ids.map((id) => `customerId=${encodeURIComponent(id)}`).join('&');
  return h.app.inject({
    method: 'GET',
    url: `/core/accounts${query ? `?${query}` : ''}`,
    headers: headersOf(request, false),
  });
}

const ENVELOPE_KEYS = ['className', 'code', 'data', 'message', 'name'];

function context(response: LightMyRequestResponse, why: string): string {
  return `${why ? `${why}: ` : ''}${response.statusCode} ${response.body.slice(0, 2000)}`;
}

/** The success envelope (docs/behaviour.md#envelope), exactly: returns `data`. */
export function assertSuccess<T = unknown>(response: LightMyRequestResponse, why = ''): T {
  const where = context(response, why);
  assert.equal(response.statusCode, 200, where);
  assert.match(String(response.headers['content-type']), /^application\/json/, where);
  const body = response.json<Record<string, unknown>>();
  assert.deepEqual(Object.keys(body).sort(), ENVELOPE_KEYS, where);
  assert.equal(body['name'], 'Success', where);
  assert.equal(body['className'], 'Success', where);
  assert.equal(body['message'], 'Success', where);
  assert.equal(body['code'], 200, where);
  return body['data'] as T;
}

export interface ErrorKind {
  readonly status: number;
  readonly name: string;
  readonly className: string;
}

export const BAD_REQUEST: ErrorKind = { status: 400, name: 'BadRequest', className: 'bad-request' };
export const NOT_AUTHENTICATED: ErrorKind = { status: 401, name: 'NotAuthenticated', className: 'not-authenticated' };
export const NOT_FOUND: ErrorKind = { status: 404, name: 'NotFound', className: 'not-found' };
export const CONFLICT: ErrorKind = { status: 409, name: 'Conflict', className: 'conflict' };
export const PAYLOAD_TOO_LARGE: ErrorKind = { status: 413, name: 'PayloadTooLarge', className: 'payload-too-large' };
export const BAD_GATEWAY: ErrorKind = { status: 502, name: 'BadGateway', className: 'bad-gateway' };
export const UNAVAILABLE: ErrorKind = { status: 503, name: 'Unavailable', className: 'unavailable' };

export interface ErrorEnvelope {
  readonly name: string;
  readonly className: string;
  readonly message: string;
  readonly code: number;
  readonly data: { errors?: Array<{ path: string; message: string }>; reason?: string; [key: string]: unknown };
}

/** The FeathersJS error envelope (docs/behaviour.md#envelope), with exactly its five members. */
export function assertError(response: LightMyRequestResponse, kind: ErrorKind, why = ''): ErrorEnvelope {
  const where = context(response, why);
  assert.equal(response.statusCode, kind.status, where);
  assert.match(String(response.headers['content-type']), /^application\/json/, where);
  const body = response.json<ErrorEnvelope>();
  assert.deepEqual(Object.keys(body).sort(), ENVELOPE_KEYS, where);
  assert.equal(body.name, kind.name, where);
  assert.equal(body.className, kind.className, where);
  assert.equal(body.code, kind.status, where);
  assert.equal(typeof body.message, 'string', where);
  assert.ok(body.message.length > 0, where);
  assert.equal(typeof body.data, 'object', where);
  assert.notEqual(body.data, null, where);
  assert.doesNotMatch(response.body, /\bat .+\.js:\d+/, `${where}: no stack trace`);
  return body;
}

/** 400 whose `data.errors` names exactly the `paths` (each with a message). */
export function assertBadRequest(response: LightMyRequestResponse, paths: readonly string[], why = ''): ErrorEnvelope {
  const body = assertError(response, BAD_REQUEST, why);
  const errors = body.data.errors ?? assert.fail(`${context(response, why)}: data.errors missing`);
  assert.ok(Array.isArray(errors), context(response, why));
  for (const error of errors) {
    assert.deepEqual(Object.keys(error).sort(), ['message', 'path'], context(response, why));
    assert.equal(typeof error.path, 'string');
    assert.ok(typeof error.message === 'string' && error.message.length > 0, context(response, why));
  }
  assert.deepEqual([...new Set(errors.map((error) => error.path))].sort(), [...paths].sort(), context(response, why));
  return body;
}

/** Rows of the association table, optionally for one platform. */
export async function associationCount(h: Harness, platform?: string): Promise<number> {
  const rows = await h.services.database.query<{ n: number }>(
    `select count(*)::int as n from associations${platform === undefined ? '' : ' where platform = $1'}`,
    platform === undefined ? [] : [platform],
  );
  return Number(rows[0]?.n);
}

export interface AssociationRow {
  readonly customer_key: string;
  readonly delegate_sealed: string;
  readonly expires_at: Date;
  readonly needs_reregistration: boolean;
  readonly version: number;
}

/** The stored association as a row (sealed delegate reference ID included), or undefined. */
export async function associationRow(
  h: Harness,
  platform: string,
  customerId: string,
): Promise<AssociationRow | undefined> {
  const rows = await h.services.database.query<AssociationRow>(
    'select customer_key, delegate_sealed, expires_at, needs_reregistration, version from associations where platform = $1 and customer_id = $2',
    [platform, customerId],
  );
  const row = rows[0];
  return row && { ...row, expires_at: new Date(row.expires_at), version: Number(row.version) };
}

/** A clock that reads another clock set later: lets a core built before the harness share the harness's FakeClock. */
export class FollowingClock implements Clock {
  target: Clock | undefined;
  now(): Date {
    return (this.target ?? assert.fail('FollowingClock used before its target was set')).now();
  }
}

/** The demo directory, except for customer keys the test has made the core forget. */
export class ForgetfulDirectory implements CustomerDirectory {
  readonly description = 'demo customers, some forgotten';
  readonly forgotten = new Set<string>();
  private readonly inner = demoDirectory();

  byKey(customerKey: string): CoreCustomer | undefined {
    return this.forgotten.has(customerKey) ? undefined : this.inner.byKey(customerKey);
  }
  byDemographics(demographics: Demographics): CoreCustomer | undefined {
    const found = this.inner.byDemographics(demographics);
    return found && !this.forgotten.has(found.customerKey) ? found : undefined;
  }
}

/**
 * Wraps a core connector: counts calls, keeps every delegate reference ID the core
 * issued and every one coregate sent, and can be told to reject every account
 * listing (`rejectAccounts`) with the given error.
 */
export class RecordingCore implements CoreConnector {
  readonly startSessionCalls: RegistrationSubject[] = [];
  readonly listAccountsCalls: string[] = [];
  readonly issued: string[] = [];
  /** When set, every `listAccounts` throws what it returns (after counting the call). */
  failAccounts: (() => Error) | undefined;
  /** When set, awaited by every `listAccounts` before it goes on (with the call's number, from 1). */
  beforeListAccounts: ((call: number) => Promise<void>) | undefined;

  constructor(readonly inner: CoreConnector) {}

  async startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    this.startSessionCalls.push(subject);
    const session = await this.inner.startSession(subject, context);
    this.issued.push(session.delegateReferenceId);
    return session;
  }

  async listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    this.listAccountsCalls.push(delegateReferenceId);
    await this.beforeListAccounts?.(this.listAccountsCalls.length);
    if (this.failAccounts) throw this.failAccounts();
    return this.inner.listAccounts(delegateReferenceId, context);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A customerId no other test uses. */
let sequence = 0;
export function uniqueId(prefix = 'cust'): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${sequence}`;
}
