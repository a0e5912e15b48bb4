/**
 * Signing in to the operator console (docs/operations.md#console): `console link` makes a
 * single-use link for a named operator; opening it starts a session held in a cookie. Links
 * and sessions are bearer secrets: only their SHA-256 digests are stored, so a copy of the
 * table signs nobody in. The form token of a session is derived from its secret (an HMAC
 * under it), so it needs no storage and cannot be made without the cookie.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  consoleActor,
  DEFAULT_LINK_TTL_SECONDS,
  isOperatorName,
  linkRefusal,
  MAX_LINK_TTL_SECONDS,
  sessionEnd,
  type LinkRefusal,
  type SessionEnd,
} from '../domain/console-session.js';
import { invalidRequest, type FieldProblem } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { ConsoleSessionStore } from '../ports/console-session-store.js';
import type { AuditTrail } from './audit-trail.js';

/** 256 bits from the system's CSPRNG, in URL- and cookie-safe base64. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A session's form token: an HMAC under the session secret, so only its holder can make it. */
function formTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('console form').digest('base64url');
}

/** Tokens are base64url of 32 bytes; anything else is refused before it reaches the store. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedLink {
  /** The secret part of the URL; shown once, to the operator who asked for it. */
  readonly token: string;
  readonly operator: string;
  readonly expiresAt: Date;
}

export type Redeemed =
  | { readonly ok: true; readonly sessionToken: string; readonly operator: string }
  | { readonly ok: false; readonly refusal: LinkRefusal };

export type Authenticated =
  | { readonly ok: true; readonly operator: string; readonly formToken: string }
  | { readonly ok: false; readonly ended: SessionEnd };

export class ConsoleSignIn {
  constructor(
    private readonly store: ConsoleSessionStore,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  /** A single-use link for `operator`, valid `ttlSeconds` (5 minutes unless given). */
  async issueLink(operator: string, ttlSeconds: number = DEFAULT_LINK_TTL_SECONDS): Promise<IssuedLink> {
    const problems: FieldProblem[] = [];
    if (!isOperatorName(operator))
      problems.push({
        path: 'operator',
        message: 'must be 1 to 64 of letters, digits and . _ @ -, starting with a letter or digit',
      });
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_LINK_TTL_SECONDS)
      problems.push({ path: 'ttl-seconds', message: `must be a whole number from 1 to ${MAX_LINK_TTL_SECONDS}` });
    if (problems.length > 0) throw invalidRequest('invalid console link', { problems });
    const token = newToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    await this.store.prune(now);
    await this.store.createLink(digest(token), { operator, expiresAt, createdAt: now });
    await this.audit.record(operatorEvent('console.link_created', 'operator', operator));
    return { token, operator, expiresAt };
  }

  /** Exchanges a link's token for a new session; a link opens at most one. */
  async redeem(linkToken: string): Promise<Redeemed> {
    if (!TOKEN_SHAPE.test(linkToken)) return { ok: false, refusal: 'unknown' };
    const now = this.clock.now();
    const sessionToken = newToken();
    const link = await this.store.redeemLink(digest(linkToken), digest(sessionToken), now);
    const refusal = linkRefusal(link, now);
    if (refusal !== undefined || link === undefined) return { ok: false, refusal: refusal ?? 'unknown' };
    await this.audit.record(operatorEvent('console.signed_in', consoleActor(link.operator), link.operator));
    return { ok: true, sessionToken, operator: link.operator };
  }

  /** The operator of a live session, its activity recorded now; else why the session is over. */
  async authenticate(sessionToken: string | undefined): Promise<Authenticated> {
    if (sessionToken === undefined || !TOKEN_SHAPE.test(sessionToken)) return { ok: false, ended: 'unknown' };
    const now = this.clock.now();
    const key = digest(sessionToken);
    const session = await this.store.findSession(key);
    const ended = sessionEnd(session, now);
    if (ended !== undefined || session === undefined) {
      if (session !== undefined) await this.store.deleteSession(key);
      return { ok: false, ended: ended ?? 'unknown' };
    }
    await this.store.touchSession(key, now);
    return { ok: true, operator: session.operator, formToken: formTokenOf(sessionToken) };
  }

  /** Whether `formToken` is the one of this session (compared in constant time). */
  formTokenMatches(sessionToken: string, formToken: string | undefined): boolean {
    if (formToken === undefined) return false;
    const expected = Buffer.from(formTokenOf(sessionToken));
    const given = Buffer.from(formToken);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async signOut(sessionToken: string | undefined): Promise<void> {
    if (sessionToken !== undefined && TOKEN_SHAPE.test(sessionToken))
      await this.store.deleteSession(digest(sessionToken));
  }
}

function operatorEvent(
  type: 'console.link_created' | 'console.signed_in',
  actor: 'operator' | `operator:${string}`,
  operator: string,
) {
  // The operator's name is the target of the row (`reason`), never the link or the session.
  return {
    type,
    outcome: 'success' as const,
    reason: operator,
    actor,
    clientId: null,
    platform: null,
    customerId: null,
    requestId: null,
  };
}
