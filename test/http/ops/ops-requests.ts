/** Requests to the operations endpoints and reading the Prometheus text format, for the ops suites. */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import type { AccountRecord } from '../../../src/domain/account.js';
import type { CoreCallContext, CoreConnector, CoreSession } from '../../../src/ports/core-connector.js';
import type { Harness } from '../../support/harness.js';
import type { RegistrationSubject } from '../../../src/domain/registration.js';

export function getOps(
  h: Harness,
  path: '/healthz' | '/readyz' | '/metrics',
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'GET', url: path, headers });
}

/** `name{label="value",…}` → value, for every sample of an exposition. */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels = match[2]
      ? [...match[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}=${v}`).sort()
      : [];
    samples.set(`${match[1]}{${labels.join(',')}}`, Number(match[3]));
  }
  return samples;
}

/** The value of the sample with exactly these labels; 0 when the series does not exist (yet). */
export function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  const key = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',')}}`;
  return samples.get(key) ?? 0;
}

export async function scrape(h: Harness): Promise<Map<string, number>> {
  const response = await getOps(h, '/metrics');
  assert.equal(response.statusCode, 200, response.body);
  return parseMetrics(response.body);
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A core connector the test can swap while the app runs (calls and pings go to `current`). */
export class SwitchableCore implements CoreConnector {
  constructor(public current: CoreConnector) {}
  startSession(subject: RegistrationSubject, context: CoreCallContext): Promise<CoreSession> {
    return this.current.startSession(subject, context);
  }
  listAccounts(delegateReferenceId: string, context: CoreCallContext): Promise<AccountRecord[]> {
    return this.current.listAccounts(delegateReferenceId, context);
  }
  async ping(context: CoreCallContext): Promise<void> {
    await this.current.ping?.(context);
  }
  /** The test closes the connectors it made. */
  async close(): Promise<void> {}
}
