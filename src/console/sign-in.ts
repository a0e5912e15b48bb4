/**
 * Opening a sign-in link: `GET /console/sign-in?token=…` exchanges the link for a session
 * cookie, once. The answer is a page with a link onwards rather than a redirect: a browser
 * that followed the link from another site (a mail or chat client) would not send a
 * `SameSite=Strict` cookie on a redirect that site started, and the operator would land on
 * "signed out" right after signing in.
 */
import type { RouteHandlerMethod } from 'fastify';
import type { ConsoleSignIn } from '../app/console-sign-in.js';
import { SESSION_ABSOLUTE_LIMIT_MS } from '../domain/console-session.js';
import { html } from './html.js';
import { HOW_TO_SIGN_IN, publicPage } from './layout.js';

export interface CookieSettings {
  readonly secure: boolean;
  readonly cookieName: string;
}

/** The session cookie's attributes: never readable by script, never sent from another site. */
export function sessionCookieOptions(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'strict', secure } as const;
}

const REFUSALS = {
  unknown: 'This sign-in link is not valid.',
  used: 'This sign-in link was used already: each link signs in once.',
  expired: 'This sign-in link has expired.',
} as const;

export function signInRoutes(
  signIn: ConsoleSignIn,
  settings: CookieSettings,
): { method: 'GET'; url: string; handler: RouteHandlerMethod }[] {
  return [
    {
      method: 'GET',
      url: '/console/sign-in',
      handler: async (request, reply) => {
        const token = (request.query as Record<string, unknown>)['token'];
        const redeemed = await signIn.redeem(typeof token === 'string' ? token : '');
        reply.type('text/html; charset=utf-8');
        if (!redeemed.ok) {
          request.log.info({ refusal: redeemed.refusal }, 'console sign-in link refused');
          return reply.code(400).send(
            publicPage(
              'Sign-in link refused',
              html`<p>${REFUSALS[redeemed.refusal]} Nobody was signed in.</p>
                ${HOW_TO_SIGN_IN}`,
            ).markup,
          );
        }
        reply.setCookie(settings.cookieName, redeemed.sessionToken, {
          ...sessionCookieOptions(settings.secure),
          maxAge: SESSION_ABSOLUTE_LIMIT_MS / 1000,
        });
        return reply.send(
          publicPage(
            'Signed in',
            html`<p>You are signed in as <strong>${redeemed.operator}</strong>.</p>
              <p><a class="button" href="/console">Open the console</a></p>
              <p class="hint">The session ends after 15 minutes without activity, and 8 hours after signing in.</p>`,
          ).markup,
        );
      },
    },
  ];
}
