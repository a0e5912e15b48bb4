/**
 * The operator console's sign-in rules (docs/operations.md#console): a single-use link
 * that opens one session, and the two limits of a session — idle and absolute. Pure
 * functions of the current time, so that tests move a clock rather than wait.
 */

/** How long a sign-in link is valid when `--ttl-seconds` is not given. */
export const DEFAULT_LINK_TTL_SECONDS = 300;
/** The longest a link may be valid: it is a bearer credential until used. */
export const MAX_LINK_TTL_SECONDS = 3600;
/** A session unused for this long is over. */
export const SESSION_IDLE_LIMIT_MS = 15 * 60 * 1000;
/** A session is over this long after its sign-in, however busy. */
export const SESSION_ABSOLUTE_LIMIT_MS = 8 * 60 * 60 * 1000;

/** An operator's name as the audit log records it: letters, digits and `. _ @ -`. */
const OPERATOR_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$';
const OPERATOR_NAME = new RegExp(OPERATOR_NAME_PATTERN);

export function isOperatorName(name: string): boolean {
  return OPERATOR_NAME.test(name);
}

/** The audit actor of an operator's console actions: `operator:NAME`. */
export function consoleActor(operator: string): `operator:${string}` {
  return `operator:${operator}`;
}

export interface ConsoleLink {
  readonly operator: string;
  readonly expiresAt: Date;
  /** When it was exchanged for a session; `null` while unused. */
  readonly usedAt: Date | null;
}

export interface ConsoleSession {
  readonly operator: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
}

/** Why a link opens no session. */
export type LinkRefusal = 'unknown' | 'used' | 'expired';

/** `undefined` when the link may open a session now, else why not. */
export function linkRefusal(link: ConsoleLink | undefined, now: Date): LinkRefusal | undefined {
  if (link === undefined) return 'unknown';
  if (link.usedAt !== null) return 'used';
  if (now.getTime() >= link.expiresAt.getTime()) return 'expired';
  return undefined;
}

/** Why a session no longer signs its operator in. */
export type SessionEnd = 'unknown' | 'idle' | 'expired';

/** `undefined` while the session is live at `now`, else why it is over (absolute limit first). */
export function sessionEnd(session: ConsoleSession | undefined, now: Date): SessionEnd | undefined {
  if (session === undefined) return 'unknown';
  if (now.getTime() - session.createdAt.getTime() >= SESSION_ABSOLUTE_LIMIT_MS) return 'expired';
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_IDLE_LIMIT_MS) return 'idle';
  return undefined;
}
