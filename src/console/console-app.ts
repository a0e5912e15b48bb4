/**
 * The operator console (docs/operations.md#console): server-rendered pages at `/console`
 * on a listener of their own, built without listening like `buildApp`. The checks every
 * request passes, in order:
 *
 * 1. a write (POST) must come from a page of this console: its `Origin` is this origin;
 * 2. the session cookie must name a live session (idle and absolute limits);
 * 3. a write must carry the session's form token (the synchronizer token of OWASP's CSRF
 *    cheat sheet, derived from the session so that nothing more is stored).
 *
 * Each page runs the same admin operations as the CLI, their writes audited as
 * `operator:NAME`. Every answer carries a strict Content-Security-Policy: the console
 * has no script at all and one stylesheet it serves itself.
 */
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { ConsoleSignIn } from '../app/console-sign-in.js';
import { consoleActor } from '../domain/console-session.js';
import { CONSOLE_CSS } from './console-css.js';
import { html, type SafeHtml } from './html.js';
import { HOW_TO_SIGN_IN, publicPage, STYLESHEET_PATH, type Signed } from './layout.js';
import { auditRoutes } from './pages/audit-page.js';
import { clientRoutes } from './pages/clients-page.js';
import { customerRoutes } from './pages/customers-page.js';
import { institutionRoutes } from './pages/institutions-page.js';
import { keyRoutes } from './pages/keys-page.js';
import { overviewRoutes } from './pages/overview-page.js';
import type { OverviewSource } from './overview-source.js';
import type { Operations } from './page-route.js';
import { webhookRoutes } from './pages/webhooks-page.js';
import { sessionCookieOptions, signInRoutes } from './sign-in.js';

export interface ConsoleDeps {
  readonly logger: FastifyBaseLogger;
  readonly signIn: ConsoleSignIn;
  /** The admin operations with their writes audited as `actor`. */
  operations(actor: `operator:${string}`): Operations;
  readonly overview: OverviewSource;
  /** The certificate and key of `COREGATE_TLS_*`: the console then speaks HTTPS only. */
  readonly https?: { readonly key: string | Buffer; readonly cert: string | Buffer } | undefined;
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join('; ');

const MAX_FORM_BYTES = 64 * 1024;

/** The cookie is the session's only carrier; `__Host-` binds it to this origin and path `/` (RFC 6265bis §4.1.3.2). */
function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-coregate-console' : 'coregate-console';
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleSigned?: Signed & { readonly sessionToken: string };
  }
}

/**
 * Whether a write comes from a page of this console. Its `Origin` is this origin; but under
 * `Referrer-Policy: no-referrer` a browser sends `Origin: null` even on a same-origin form
 * (Fetch, "serializing a request origin"), and then its Fetch Metadata header
 * `Sec-Fetch-Site: same-origin` says where the form was. A cross-site form says `cross-site`,
 * a sandboxed frame `null` with `cross-site`; neither passes.
 */
function fromThisOrigin(request: FastifyRequest, secure: boolean): boolean {
  const origin = request.headers.origin;
  if (origin === `${secure ? 'https' : 'http'}://${request.headers.host ?? ''}`) return true;
  return origin === 'null' && request.headers['sec-fetch-site'] === 'same-origin';
}

function send(reply: FastifyReply, status: number, body: SafeHtml): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.markup);
}

function signedOutPage(ended: 'unknown' | 'idle' | 'expired'): SafeHtml {
  const why =
    ended === 'unknown'
      ? 'You are not signed in.'
      : ended === 'idle'
        ? 'Your session ended after 15 minutes without activity.'
        : 'Your session reached its 8-hour limit.';
  return publicPage(
    'Signed out',
    html`<p>${why}</p>
      ${HOW_TO_SIGN_IN}`,
  );
}

function refusedPage(why: string): SafeHtml {
  return publicPage(
    'Form refused',
    html`<p>${why} Nothing was changed.</p>
      <p><a href="/console">Back to the console</a></p>`,
  );
}

export async function buildConsoleApp(deps: ConsoleDeps): Promise<FastifyInstance> {
  const secure = deps.https !== undefined;
  const cookieName = sessionCookieName(secure);
  const app = Fastify({
    loggerInstance: deps.logger.child({ server: 'console' }),
    genReqId: () => randomUUID(),
    // The sign-in URL carries its token: fastify's request lines would log it. One line per
    // answer is written below instead, with the route pattern and never the query.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: MAX_FORM_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...(deps.https ? { https: { key: deps.https.key, cert: deps.https.cert } } : {}),
  });
  await app.register(cookie);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );

  app.addHook('onSend', async (request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (request.url !== STYLESHEET_PATH) reply.header('cache-control', 'no-store');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unknown',
        status: reply.statusCode,
        operator: request.consoleSigned?.operator,
      },
      'console request',
    );
  });
  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      request.log.info({ err: error }, 'console request refused');
      return send(reply, status, publicPage('Request refused', html`<p>The request could not be read.</p>`));
    }
    request.log.error({ err: error }, 'console request failed');
    return send(
      reply,
      500,
      publicPage(
        'Something went wrong',
        html`<p>The server could not answer. Request id: <code>${request.id}</code></p>`,
      ),
    );
  });
  app.setNotFoundHandler((_request, reply) =>
    send(reply, 404, publicPage('Not found', html`<p>No such page. <a href="/console">Go to the Overview</a>.</p>`)),
  );

  app.get(STYLESHEET_PATH, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'private, max-age=3600').send(CONSOLE_CSS),
  );
  // Browsers ask for it on every page: an empty answer rather than a 404 in their console.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
  for (const route of signInRoutes(deps.signIn, { secure, cookieName }))
    app.route({ method: route.method, url: route.url, handler: route.handler });

  // Every other page: the writes' origin, the session, the form token — in that order.
  await app.register((pages, _options, done) => {
    pages.addHook('preHandler', async (request, reply) => {
      if (request.method === 'POST') {
        const origin = request.headers.origin;
        if (!fromThisOrigin(request, secure)) {
          request.log.warn({ origin: origin ?? null }, 'console write refused: foreign or missing Origin');
          return send(reply, 403, refusedPage('This form did not come from a page of this console.'));
        }
      }
      const sessionToken = request.cookies[cookieName];
      const session = await deps.signIn.authenticate(sessionToken);
      if (!session.ok || sessionToken === undefined) {
        if (session.ok === false && session.ended !== 'unknown')
          reply.clearCookie(cookieName, sessionCookieOptions(secure));
        return send(reply, 401, signedOutPage(session.ok ? 'unknown' : session.ended));
      }
      if (request.method === 'POST') {
        const form = request.body instanceof URLSearchParams ? request.body : undefined;
        if (!deps.signIn.formTokenMatches(sessionToken, form?.get('_csrf') ?? undefined)) {
          request.log.warn({ operator: session.operator }, 'console write refused: missing or wrong form token');
          return send(reply, 403, refusedPage('This form had no valid form token: reload the page and try again.'));
        }
      }
      request.consoleSigned = { operator: session.operator, formToken: session.formToken, sessionToken };
      return undefined;
    });
    const routes = [
      ...overviewRoutes(deps.overview),
      ...clientRoutes(),
      ...institutionRoutes(deps.overview),
      ...customerRoutes(),
      ...webhookRoutes(),
      ...keyRoutes(),
      ...auditRoutes(),
    ];
    for (const route of routes) {
      pages.route({
        method: route.method,
        url: route.url,
        handler: async (request, reply) => {
          const signed = request.consoleSigned!;
          const answer = await route.handle({
            signed,
            operations: deps.operations(consoleActor(signed.operator)),
            form: request.body instanceof URLSearchParams ? request.body : new URLSearchParams(),
            params: (request.params ?? {}) as Record<string, string>,
          });
          return 'status' in answer ? send(reply, answer.status, answer.page) : send(reply, 200, answer);
        },
      });
    }
    pages.post('/console/sign-out', async (request: FastifyRequest, reply) => {
      await deps.signIn.signOut(request.consoleSigned?.sessionToken);
      reply.clearCookie(cookieName, sessionCookieOptions(secure));
      return send(
        reply,
        200,
        publicPage(
          'Signed out',
          html`<p>You are signed out.</p>
            ${HOW_TO_SIGN_IN}`,
        ),
      );
    });
    done();
  });
  return app;
}
