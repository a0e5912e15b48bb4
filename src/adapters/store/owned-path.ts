/**
 * The embedded installation's files belong to the user running coregate, like
 * PostgreSQL's data directory: a data dir, key file or lock file that another local
 * user made (a world-writable directory created in advance, an `encryption.key`
 * planted in it) is refused before anything in it is read or written. See
 * docs/operations.md, "Threat model".
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';

class NotOwnedByThisUser extends Error {
  constructor(
    readonly path: string,
    readonly ownerUid: number,
    readonly uid: number,
  ) {
    super(
      `${path} belongs to uid ${ownerUid}, not to the user running coregate (uid ${uid}): refusing to use it; make it with this user, or chown it (as PostgreSQL requires of its data directory)`,
    );
  }
}

/** This process's user id; `undefined` where there are none (Windows). */
function ownUid(): number | undefined {
  return process.getuid?.();
}

/** Refuses `path`, described by `stats`, when it belongs to another user. */
export function requireOwner(path: string, stats: Stats): void {
  const uid = ownUid();
  if (uid !== undefined && stats.uid !== uid) throw new NotOwnedByThisUser(path, stats.uid, uid);
}

/**
 * Refuses `dir` (followed if a symbolic link) when it exists and belongs to another
 * user; returns whether it exists.
 */
export function requireOwnDirectory(dir: string): boolean {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  requireOwner(dir, stats);
  return true;
}

/**
 * Reads `path` as text after checking, on the opened file itself, that this user owns
 * it; a symbolic link is not followed (ELOOP). Throws ENOENT when it is absent.
 */
export function readOwnFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    requireOwner(path, fstatSync(fd));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
