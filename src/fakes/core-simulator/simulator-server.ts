/**
 * The simulator over HTTP: the reference core protocol (docs/core-protocol.md)
 * plus the `/_sim/*` control endpoints (docs/behaviour.md#control-endpoints). Plain node:http,
 * because the simulator is also the benchmarks' peer and must not be what is measured.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type {} from '../../ports/core-connector.js';
import { describeProblems, jsonType, safeName, type Problem } from '../../adapters/core/account-record.js';
import {
  PROTOCOL_HEADERS,
  PROTOCOL_PATHS,
  type AccountsBody,
  type ErrorBody,
  type ProtocolErrorCode,
  type SessionBody,
} from '../../adapters/core/protocol.js';
import { readFaults, SimulatorError, type CoreSimulator } from './core-simulator.js';
import type { RegistrationSubject } from '../../domain/registration.js';
import { isPlainObject } from '../../domain/json.js';
import { BodyTooLarge, closeServer, listen, readBody as readFakeBody, sendJson } from '../fake-http-server.js';

/** Largest request body the simulator reads. */
const MAX_BODY_BYTES = 64 * 1024;

export interface SimulatorServerOptions {
  readonly simulator: CoreSimulator;
  /** 8090 by default; 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** When set, every protocol call must carry it as `X-Api-Key` (the `/_sim/*` endpoints do not need it). */
  readonly apiKey?: string;
  /**
   * Serve HTTPS with this certificate and key (PEM). With `ca`, the simulator demands a
   * client certificate signed by it (mutual TLS, as a bank's core may): a connection
   * without one is refused during the handshake.
   */
  readonly tls?: { readonly cert: Buffer | string; readonly key: Buffer | string; readonly ca?: Buffer | string };
}

export interface RunningSimulatorServer {
  /** `http://host:port` (`https://` with `tls`), with the port actually bound. */
  readonly url: string;
  readonly server: Server;
  readonly simulator: CoreSimulator;
  /** Stops accepting, cuts injected latencies short, and resolves once every connection is closed. */
  close(): Promise<void>;
}

class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    readonly code: ProtocolErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Every simulator answer is JSON that no cache may keep. */
const ANSWER_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

function send(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendJson(res, status, body, headers ? { ...ANSWER_HEADERS, ...headers } : ANSWER_HEADERS);
}

function sendError(
  res: ServerResponse,
  status: number,
  code: ProtocolErrorCode,
  message: string,
  headers?: Record<string, string>,
): void {
  const body: ErrorBody = { error: code, message };
  send(res, status, body, headers);
}

async function readBody(req: IncomingMessage): Promise<string> {
  try {
    return await readFakeBody(req, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new HttpAnswer(413, 'payload_too_large', error.message);
    throw error;
  }
}

async function readJson(req: IncomingMessage, { required }: { required: boolean }): Promise<unknown> {
  const text = await readBody(req);
  if (text.trim() === '' && !required) return {};
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new HttpAnswer(400, 'invalid_request', 'Content-Type must be application/json');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpAnswer(400, 'invalid_request', 'the body is not valid JSON');
  }
}

function invalid(problems: Problem[]): HttpAnswer {
  return new HttpAnswer(400, 'invalid_request', describeProblems(problems));
}

function stringField(value: Record<string, unknown>, field: string, path: string, problems: Problem[]): string {
  const found = value[field];
  if (found === undefined) problems.push({ path: `${path}${field}`, message: 'missing' });
  else if (typeof found !== 'string' || found.trim() === '')
    problems.push({ path: `${path}${field}`, message: `expected a non-empty string, got ${jsonType(found)}` });
  return typeof found === 'string' ? found : '';
}

/** Reads a `POST /v1/sessions` body; the simulator is strict so a gateway bug shows up here rather than at a bank. */
function readStartSessionBody(body: unknown): RegistrationSubject {
  if (!isPlainObject(body)) throw invalid([{ path: '(body)', message: `expected an object, got ${jsonType(body)}` }]);
  const problems: Problem[] = [];
  for (const name of Object.keys(body)) {
    if (name !== 'demographics' && name !== 'customerKey')
      problems.push({ path: safeName(name), message: 'unknown field' });
  }
  const hasDemographics = Object.hasOwn(body, 'demographics');
  if (hasDemographics === Object.hasOwn(body, 'customerKey')) {
    problems.push({ path: '(body)', message: 'expected exactly one of "demographics" and "customerKey"' });
    throw invalid(problems);
  }
  if (!hasDemographics) {
    const customerKey = stringField(body, 'customerKey', '', problems);
    if (problems.length > 0) throw invalid(problems);
    return { kind: 'customerKey', customerKey };
  }
  const demographics = body.demographics;
  if (!isPlainObject(demographics))
    throw invalid([
      ...problems,
      { path: 'demographics', message: `expected an object, got ${jsonType(demographics)}` },
    ]);
  for (const name of Object.keys(demographics)) {
    if (!['socialSecurityNumber', 'accountNumber', 'birthDay'].includes(name))
      problems.push({ path: `demographics.${safeName(name)}`, message: 'unknown field' });
  }
  const socialSecurityNumber = stringField(demographics, 'socialSecurityNumber', 'demographics.', problems);
  const accountNumber = stringField(demographics, 'accountNumber', 'demographics.', problems);
  const birthDay = stringField(demographics, 'birthDay', 'demographics.', problems);
  if (problems.length > 0) throw invalid(problems);
  return { kind: 'demographics', socialSecurityNumber, accountNumber, birthDay };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request handler, without listening: tests and embedders can mount it on their own server. */
export function simulatorHandler(
  simulator: CoreSimulator,
  options: { apiKey?: string; signal?: AbortSignal } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const expectedKey = options.apiKey === undefined || options.apiKey === '' ? undefined : digest(options.apiKey);

  const checkApiKey = (req: IncomingMessage) => {
    if (!expectedKey) return;
    const given = headerValue(req, PROTOCOL_HEADERS.apiKey);
    // Compared as digests: constant time whatever the lengths.
    if (given === undefined || !timingSafeEqual(digest(given), expectedKey)) {
      throw new HttpAnswer(403, 'api_key_invalid', 'missing or wrong X-Api-Key');
    }
  };

  /** Applies the injected faults, cutting a latency short when the caller hangs up or the server stops. */
  const faults = async (res: ServerResponse) => {
    const cut = new AbortController();
    const abort = () => cut.abort();
    res.once('close', abort);
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      await simulator.applyFaults(cut.signal);
    } finally {
      res.off('close', abort);
      options.signal?.removeEventListener('abort', abort);
    }
  };

  const protocol = async (req: IncomingMessage, res: ServerResponse, operation: 'sessions' | 'accounts') => {
    const requestId = headerValue(req, PROTOCOL_HEADERS.requestId);
    checkApiKey(req);
    if (simulator.faults.latencyMs > 0 || simulator.faults.errorRate > 0) await faults(res);
    if (operation === 'sessions' && req.method === 'DELETE') {
      req.resume();
      const delegateReferenceId = headerValue(req, PROTOCOL_HEADERS.delegateReferenceId);
      if (delegateReferenceId === undefined || delegateReferenceId === '')
        throw new HttpAnswer(400, 'invalid_request', 'the X-Delegate-Reference-Id header is required');
      simulator.endSession(delegateReferenceId, requestId);
      res.writeHead(204).end();
      return;
    }
    if (operation === 'sessions') {
      const subject = readStartSessionBody(await readJson(req, { required: true }));
      const session = simulator.startSession(subject, requestId);
      const body: SessionBody = {
        customerKey: session.customerKey,
        delegateReferenceId: session.delegateReferenceId,
        expiresAt: session.expiresAt.toISOString(),
      };
      send(res, 201, body);
      return;
    }
    req.resume();
    const delegateReferenceId = headerValue(req, PROTOCOL_HEADERS.delegateReferenceId);
    if (delegateReferenceId === undefined || delegateReferenceId === '')
      throw new HttpAnswer(400, 'invalid_request', 'the X-Delegate-Reference-Id header is required');
    const body: AccountsBody = { accounts: simulator.listAccounts(delegateReferenceId, requestId) };
    send(res, 200, body);
  };

  /** `GET /v1/health`: needs the API key like the protocol calls; never subject to faults. */
  const health = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    req.resume();
    checkApiKey(req);
    send(res, 200, { status: 'ok' });
    return Promise.resolve();
  };

  const control = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (path === '/_sim/stats') {
      req.resume();
      send(res, 200, simulator.stats());
    } else if (path === '/_sim/sessions/expire') {
      req.resume();
      send(res, 200, { expired: simulator.expireAll() });
    } else if (path === '/_sim/customers/forget') {
      const body = await readJson(req, { required: true });
      const customerKey = isPlainObject(body) ? body['customerKey'] : undefined;
      if (typeof customerKey !== 'string' || customerKey === '')
        throw invalid([{ path: 'customerKey', message: 'expected a non-empty string' }]);
      send(res, 200, { customerKey, sessionsEnded: simulator.forgetCustomer(customerKey) });
    } else if (req.method === 'GET') {
      send(res, 200, simulator.faults);
    } else {
      const read = readFaults(await readJson(req, { required: false }));
      if ('problems' in read) throw invalid(read.problems);
      send(res, 200, simulator.setFaults(read.faults));
    }
  };

  const routes: Record<
    string,
    { methods: string[]; run: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> }
  > = {
    [PROTOCOL_PATHS.sessions]: { methods: ['POST', 'DELETE'], run: (req, res) => protocol(req, res, 'sessions') },
    [PROTOCOL_PATHS.accounts]: { methods: ['GET'], run: (req, res) => protocol(req, res, 'accounts') },
    [PROTOCOL_PATHS.health]: { methods: ['GET'], run: health },
    '/_sim/stats': { methods: ['GET'], run: control },
    '/_sim/sessions/expire': { methods: ['POST'], run: control },
    '/_sim/faults': { methods: ['GET', 'POST'], run: control },
    '/_sim/customers/forget': { methods: ['POST'], run: control },
  };

  return (req, res) => {
    const requestId = headerValue(req, PROTOCOL_HEADERS.requestId);
    if (requestId !== undefined && /^[\x21-\x7e]{1,200}$/.test(requestId)) res.setHeader('x-request-id', requestId);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const route = routes[path];
    const run = async () => {
      if (!route) throw new HttpAnswer(404, 'not_found', 'no such endpoint');
      if (!route.methods.includes(req.method ?? ''))
        throw new HttpAnswer(405, 'method_not_allowed', `use ${route.methods.join(' or ')}`, {
          allow: route.methods.join(', '),
        });
      await route.run(req, res, path);
    };
    run().catch((error: unknown) => {
      req.resume();
      if (res.headersSent || res.destroyed) return;
      if (error instanceof HttpAnswer) sendError(res, error.status, error.code, error.message, error.headers);
      else if (error instanceof SimulatorError) sendError(res, error.status, error.code, error.message);
      else if ((error as Error).name === 'AbortError')
        sendError(res, 503, 'core_failure', 'the simulator is shutting down', { connection: 'close' });
      else sendError(res, 500, 'core_failure', 'unexpected simulator failure');
    });
  };
}

/** Starts the simulator server and resolves once it listens. */
export async function startSimulatorServer(options: SimulatorServerOptions): Promise<RunningSimulatorServer> {
  const stopping = new AbortController();
  const handler = simulatorHandler(options.simulator, {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    signal: stopping.signal,
  });
  const tls = options.tls;
  const server: Server = tls
    ? createHttpsServer(
        {
          cert: tls.cert,
          key: tls.key,
          ...(tls.ca ? { ca: tls.ca, requestCert: true, rejectUnauthorized: true } : {}),
        },
        handler,
      )
    : createServer(handler);
  // Benchmarks keep connections open between bursts.
  server.keepAliveTimeout = 30_000;
  const url = await listen(server, options.port ?? 8090, options.host ?? '127.0.0.1', tls ? 'https' : 'http');
  let closing: Promise<void> | undefined;
  const close = () => {
    stopping.abort();
    return (closing ??= closeServer(server, 1000));
  };
  return { url, server, simulator: options.simulator, close };
}
