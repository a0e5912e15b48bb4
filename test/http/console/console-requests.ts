/** A console app on a harness's services, and what its tests do with it: sign in, read the form token, post a form. */
import type { FastifyInstance } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { RateSampler } from '../../../src/adapters/metrics/rate-sampler.js';
import { buildConsoleApp } from '../../../src/console/console-app.js';
import { consoleDeps } from '../../../src/server/console-server.js';
import type { Harness } from '../../support/harness.js';

const HOST = 'console.test';
const ORIGIN = `http://${HOST}`;

export async function consoleApp(
  h: Harness,
  https?: { key: Buffer; cert: Buffer },
): Promise<{ app: FastifyInstance; sampler: RateSampler }> {
  const sampler = new RateSampler(h.services.metrics.registry);
  const app = await buildConsoleApp(
    consoleDeps(h.services, pino({ level: 'silent' }), {
      sampler,
      ...(https ? { tls: { ...https, validTo: new Date() } } : {}),
    }),
  );
  await app.ready();
  return { app, sampler };
}

export function linkToken(h: Harness, operator = 'alice', ttlSeconds?: number): Promise<string> {
  return h.services.consoleSignIn.issueLink(operator, ttlSeconds).then((link) => link.token);
}

export function openLink(app: FastifyInstance, token: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'GET',
    url: `/console/sign-in?token=${encodeURIComponent(token)}`,
    headers: { host: HOST },
  });
}

/** The `name=value` of the session cookie a sign-in set. */
export function sessionCookie(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  if (!first) throw new Error(`no cookie set: ${response.statusCode} ${response.body}`);
  return first.split(';')[0]!;
}

export async function signIn(h: Harness, app: FastifyInstance, operator = 'alice'): Promise<string> {
  return sessionCookie(await openLink(app, await linkToken(h, operator)));
}

export function getPage(app: FastifyInstance, url: string, cookie?: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers: { host: HOST, ...(cookie ? { cookie } : {}) } });
}

/** The form token a page's forms carry. */
export function formToken(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no form token on the page');
  return match[1]!;
}

export function postForm(
  app: FastifyInstance,
  url: string,
  fields: Record<string, string>,
  options: { cookie?: string; origin?: string | null; fetchSite?: string } = {},
): Promise<LightMyRequestResponse> {
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  return app.inject({
    method: 'POST',
    url,
    headers: {
      host: HOST,
      'content-type': 'application/x-www-form-urlencoded',
      ...(origin === null ? {} : { origin }),
      ...(options.fetchSite ? { 'sec-fetch-site': options.fetchSite } : {}),
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    payload: new URLSearchParams(fields).toString(),
  });
}
