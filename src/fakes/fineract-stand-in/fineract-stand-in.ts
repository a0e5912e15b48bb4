/**
 * A stand-in for Apache Fineract (docs/cores/fineract.md#stand-in): the calls the Fineract
 * connector makes, answered in Fineract's real wire shape (dates as arrays, rates in
 * percent, status objects, Fineract's error bodies), with the service user's Basic
 * credentials and the tenant header required. It records every request it receives, so
 * tests can say exactly which calls were made, and takes faults like the simulator's
 * (`POST /_sim/faults`). Plain node:http, like the simulator: it is the benchmarks' peer.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { isPlainObject } from '../../domain/json.js';
import { closeServer, listen, readBody, sendJson } from '../fake-http-server.js';
import { RELEASE_BEHAVIOUR, type FineractRelease, type ReleaseBehaviour } from './releases.js';
import { DEMO_CLIENTS, type StandInClient } from './stand-in-data.js';
import { StandInAnswers } from './stand-in-answers.js';
import { clientSearchV2, searchV1 } from './stand-in-search.js';
import { searchSavingsTransactions } from './stand-in-transaction-search.js';
import { fineractError, notFound, Refusal, servletError, type Json } from './wire-shapes.js';

export interface FineractStandInOptions {
  /** 0 (a free port) by default. */
  readonly port?: number;
  readonly host?: string;
  /** The one tenant served; `default` by default. */
  readonly tenant?: string;
  /** The service user; {@link STAND_IN_CREDENTIALS} by default. */
  readonly credentials?: { readonly username: string; readonly password: string };
  /** The clients served; {@link DEMO_CLIENTS} by default. */
  readonly clients?: readonly StandInClient[];
  /** The Fineract release imitated; `1.11` by default (docs/cores/fineract.md#releases). */
  readonly release?: FineractRelease;
  /**
   * A read-only node (`FINERACT_MODE_WRITE_ENABLED=false`): every POST is answered 405 by
   * `FineractInstanceModeApiFilter`.
   */
  readonly readOnly?: boolean;
}

/** A request as the stand-in received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, below the context root's origin, e.g. `/fineract-provider/api/v1/clients/1`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Faults injected into the Fineract endpoints (not `/_sim/*`), until reset with `{}`. */
interface StandInFaults {
  readonly latencyMs: number;
  /** Share of calls answered with `errorStatus`, 0 to 1. */
  readonly errorRate: number;
  readonly errorStatus: number;
  /** Accounts answered without their `summary`, and dates written as strings. */
  readonly malformed: boolean;
}

export interface RunningFineractStandIn {
  /** The context root, e.g. `http://127.0.0.1:8091/fineract-provider`: coregate's `CORE_URL`. */
  readonly url: string;
  readonly tenant: string;
  readonly release: FineractRelease;
  readonly credentials: { readonly username: string; readonly password: string };
  /** The latest requests received (at least the last 10,000), oldest first (`/_sim/*` included). */
  readonly requests: RecordedRequest[];
  setFaults(faults: Partial<StandInFaults>): void;
  /** Replaces one client's data (a closed client, a deleted one with `undefined`). */
  setClient(id: number, client: StandInClient | undefined): void;
  close(): Promise<void>;
}

/** The demo service user: a read-only user the bank would create for coregate. */
export const STAND_IN_CREDENTIALS = Object.freeze({ username: 'coregate-reader', password: 'stand-in-password' });
/** The context root Fineract is deployed under. */
export const STAND_IN_CONTEXT_PATH = '/fineract-provider';

const NO_FAULTS: StandInFaults = { latencyMs: 0, errorRate: 0, errorStatus: 500, malformed: false };
const MAX_BODY_BYTES = 64 * 1024;

/** The latest requests kept for inspection: a stand-in serving a long demo or a benchmark stays small. */
const KEPT_REQUESTS = 10_000;

class FineractStandIn {
  /** The latest requests (at least the last {@link KEPT_REQUESTS}, fewer than twice that), `/_sim/*` included. */
  readonly requests: RecordedRequest[] = [];
  private readonly callCounts = new Map<string, number>();
  private faults: StandInFaults = NO_FAULTS;
  private readonly clients = new Map<number, StandInClient>();
  private readonly authorization: Buffer;

  private readonly behaviour: ReleaseBehaviour;
  private readonly answers: StandInAnswers;

  constructor(
    readonly tenant: string,
    readonly credentials: { readonly username: string; readonly password: string },
    clients: readonly StandInClient[],
    readonly release: FineractRelease,
    private readonly readOnly: boolean,
  ) {
    this.behaviour = RELEASE_BEHAVIOUR[release];
    this.answers = new StandInAnswers(this.behaviour, () => this.faults.malformed);
    for (const client of clients) this.clients.set(client.id, client);
    this.authorization = digest(
      `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`,
    );
  }

  setFaults(faults: Partial<StandInFaults>): void {
    this.faults = { ...NO_FAULTS, ...faults };
  }

  /** Keeps `request` among the latest ones and counts it by call (`/_sim/*` is not counted). */
  record(request: RecordedRequest): void {
    this.requests.push(request);
    // Trimmed in one go once twice as many are held: one copy per KEPT_REQUESTS requests, not one per request.
    if (this.requests.length >= 2 * KEPT_REQUESTS) this.requests.splice(0, this.requests.length - KEPT_REQUESTS);
    const path = request.path.split('?', 1)[0]!;
    if (path.startsWith('/_sim/')) return;
    const call = `${request.method} ${path
      .slice(STAND_IN_CONTEXT_PATH.length)
      .replace(/\/\d+/g, '/{id}')
      .replace(/(external-id\/)[^/]+/, '$1{externalId}')}`;
    this.callCounts.set(call, (this.callCounts.get(call) ?? 0) + 1);
  }

  /**
   * `GET /_sim/stats`: the Fineract calls received so far (not `/_sim/*`), in all and by call,
   * ids written `{id}` — what a benchmark divides by the reads it made.
   */
  stats(): Json {
    const byCall = Object.fromEntries(this.callCounts);
    return { requests: [...this.callCounts.values()].reduce((sum, count) => sum + count, 0), byCall };
  }

  setClient(id: number, client: StandInClient | undefined): void {
    if (client) this.clients.set(id, client);
    else this.clients.delete(id);
  }

  /** Answers one request below the context root; `undefined` path → 404. */
  async answer(method: string, url: URL, headers: IncomingHttpHeaders, body: string): Promise<[number, Json | Json[]]> {
    const path = url.pathname;
    if (path === '/_sim/faults' && method === 'POST') {
      const faults = readFaults(body);
      this.setFaults(faults);
      return [200, { ...this.faults }];
    }
    if (path === '/_sim/stats' && method === 'GET') return [200, this.stats()];
    const faults = this.faults;
    if (faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    if (faults.errorRate > 0 && Math.random() < faults.errorRate)
      return [
        faults.errorStatus,
        fineractError(faults.errorStatus, 'error.msg.platform.service.unavailable', 'injected fault'),
      ];
    if (path === '/actuator/health' && method === 'GET') return [200, { status: 'UP' }];
    try {
      this.authenticate(headers, path);
      // `FineractInstanceModeApiFilter`: a node that takes no writes refuses every POST, reads included.
      if (this.readOnly && method === 'POST')
        throw new Refusal(
          405,
          fineractError(
            405,
            'error.msg.invalid.instance.type',
            'Invalid instance type called in api request for the method POST',
          ),
        );
      return [200, this.route(method, path, url.searchParams, body)];
    } catch (error) {
      if (error instanceof Refusal) return [error.status, error.body];
      throw error;
    }
  }

  /**
   * Fineract's security filter (`TenantAwareBasicAuthenticationFilter`): no tenant, or one it
   * does not know, is a 400 and a refused user a 401, both through the servlet's error page
   * (`response.sendError`), not Fineract's error body. The tenant is looked up first.
   */
  private authenticate(headers: IncomingHttpHeaders, path: string): void {
    const tenant = headers['fineract-platform-tenantid'];
    if (tenant !== this.tenant) throw new Refusal(400, servletError(400, 'Bad Request', STAND_IN_CONTEXT_PATH + path));
    const given = headers.authorization;
    if (given === undefined || !timingSafeEqual(digest(given), this.authorization))
      throw new Refusal(401, servletError(401, 'Unauthorized', STAND_IN_CONTEXT_PATH + path));
  }

  private route(method: string, path: string, query: URLSearchParams, body: string): Json | Json[] {
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/api/v2/clients/search')
      return clientSearchV2(this.clients.values(), body, this.behaviour);
    if (method === 'GET') {
      if (path === '/api/v1/search') return searchV1(this.clients.values(), query);
      if ((match = /^\/api\/v1\/clients\/external-id\/([^/]+)$/.exec(path))) {
        const externalId = decodeURIComponent(match[1]!);
        const client = [...this.clients.values()].find((candidate) => candidate.externalId === externalId);
        if (!client) throw notFound('Client', externalId);
        return this.answers.client(client);
      }
      if ((match = /^\/api\/v1\/clients\/(\d+)(\/identifiers|\/accounts)?$/.exec(path))) {
        const client = this.clients.get(Number(match[1]));
        if (!client) throw notFound('Client', match[1]!);
        if (match[2] === '/identifiers') return this.answers.identifiers(client);
        if (match[2] === '/accounts') return this.answers.accounts(client);
        return this.answers.client(client);
      }
      if ((match = /^\/api\/v1\/savingsaccounts\/(\d+)\/transactions\/search$/.exec(path))) {
        const found = this.find((client) => client.savings, Number(match[1]));
        return searchSavingsTransactions(found?.[1], query, (account, transaction) =>
          this.answers.savingsTransaction(account, transaction),
        );
      }
      if (
        (match = /^\/api\/v1\/(savingsaccounts|fixeddepositaccounts|recurringdepositaccounts|loans)\/(\d+)$/.exec(path))
      ) {
        const id = Number(match[2]);
        const associations = (query.get('associations') ?? '').split(',');
        if (match[1] === 'loans') {
          const found = this.find((client) => client.loans, id);
          if (!found) throw notFound('Loan', id);
          return this.answers.loan(found[0], found[1], associations);
        }
        const found = this.find((client) => client.savings, id);
        const wanted = { savingsaccounts: undefined, fixeddepositaccounts: 200, recurringdepositaccounts: 300 }[
          match[1]!
        ];
        if (!found || (wanted !== undefined && found[1].depositType !== wanted))
          throw notFound(match[1] === 'savingsaccounts' ? 'Savings account' : 'Deposit account', id);
        return match[1] === 'savingsaccounts'
          ? this.answers.savings(found[0], found[1], associations.includes('transactions'))
          : this.answers.termDeposit(found[0], found[1], associations.includes('transactions'));
      }
    }
    throw new Refusal(
      404,
      fineractError(404, 'error.msg.resource.not.found', 'The requested resource is not available.'),
    );
  }

  private find<T extends { id: number }>(
    accountsOf: (client: StandInClient) => readonly T[],
    id: number,
  ): [StandInClient, T] | undefined {
    for (const client of this.clients.values()) {
      const account = accountsOf(client).find((candidate) => candidate.id === id);
      if (account) return [client, account];
    }
    return undefined;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function readFaults(body: string): Partial<StandInFaults> {
  let json: unknown;
  try {
    json = body.trim() === '' ? {} : JSON.parse(body);
  } catch {
    throw new Refusal(400, fineractError(400, 'error.msg.invalid.request.body', 'The request body is not JSON.'));
  }
  if (!isPlainObject(json))
    throw new Refusal(400, fineractError(400, 'error.msg.invalid.request.body', 'Expected an object.'));
  const faults: { -readonly [K in keyof StandInFaults]?: StandInFaults[K] } = {};
  if (typeof json.latencyMs === 'number' && json.latencyMs >= 0) faults.latencyMs = json.latencyMs;
  if (typeof json.errorRate === 'number' && json.errorRate >= 0 && json.errorRate <= 1)
    faults.errorRate = json.errorRate;
  if (typeof json.errorStatus === 'number' && Number.isInteger(json.errorStatus)) faults.errorStatus = json.errorStatus;
  if (typeof json.malformed === 'boolean') faults.malformed = json.malformed;
  return faults;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body);
}

/** Starts the stand-in; `url` is the context root to configure as coregate's `CORE_URL`. */
export async function startFineractStandIn(options: FineractStandInOptions = {}): Promise<RunningFineractStandIn> {
  const standIn = new FineractStandIn(
    options.tenant ?? 'default',
    options.credentials ?? STAND_IN_CREDENTIALS,
    options.clients ?? DEMO_CLIENTS,
    options.release ?? '1.11',
    options.readOnly ?? false,
  );
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req, MAX_BODY_BYTES);
      const rawPath = req.url ?? '/';
      standIn.record({ method: req.method ?? 'GET', path: rawPath, headers: req.headers, body });
      const url = new URL(rawPath, 'http://stand-in');
      if (url.pathname.startsWith('/_sim/')) {
        try {
          const [status, answer] = await standIn.answer(req.method ?? 'GET', url, req.headers, body);
          send(res, status, answer);
        } catch (error) {
          if (error instanceof Refusal) send(res, error.status, error.body);
          else throw error;
        }
        return;
      }
      if (!url.pathname.startsWith(`${STAND_IN_CONTEXT_PATH}/`)) {
        send(res, 404, fineractError(404, 'error.msg.resource.not.found', 'The requested resource is not available.'));
        return;
      }
      const inner = new URL(url.pathname.slice(STAND_IN_CONTEXT_PATH.length) + url.search, 'http://stand-in');
      const [status, answer] = await standIn.answer(req.method ?? 'GET', inner, req.headers, body);
      if (!res.destroyed) send(res, status, answer);
    })().catch(() => {
      if (!res.headersSent)
        send(res, 500, fineractError(500, 'error.msg.platform.server.side.error', 'Internal error'));
    });
  });
  const origin = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1', 'http');
  return {
    url: `${origin}${STAND_IN_CONTEXT_PATH}`,
    tenant: standIn.tenant,
    release: standIn.release,
    credentials: standIn.credentials,
    requests: standIn.requests,
    setFaults: (faults) => standIn.setFaults(faults),
    setClient: (id, client) => standIn.setClient(id, client),
    close: () => closeServer(server, 0),
  };
}
