/**
 * `COREGATE_` variables the configuration does not know: a misspelt setting is
 * otherwise ignored without a word, and the default it leaves in place is found
 * only in production. Each is reported with the nearest known name.
 */
import { settingSchemas } from './schema.js';

/** The prefix of coregate's own settings. */
const PREFIX = 'COREGATE_';
/** Variables of coregate's test suite, passed to the servers it starts: not settings. */
const TEST_PREFIX = 'COREGATE_TEST_';

export interface UnknownSetting {
  readonly name: string;
  /** The known setting nearest to `name`, when one is near enough to be the one meant. */
  readonly nearest: string | undefined;
}

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (optimal string
 * alignment): `WOKRERS` is one edit from `WORKERS`. Written here because commander's
 * suggestion code is not exported and the names are a few dozen short strings.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known name nearest to `name`, if it is within a third of the name's length (at least 2 edits). */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(name.replace(PREFIX, '').length / 3));
  let nearest: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= limit && (nearest === undefined || distance < nearest.distance))
      nearest = { name: candidate, distance };
  }
  return nearest?.name;
}

/** Every `COREGATE_` variable set in `env` that is not a setting, in name order. */
export function unknownSettings(env: Readonly<Record<string, string | undefined>>): readonly UnknownSetting[] {
  const known = settingSchemas().map(([name]) => name as string);
  const knownSet = new Set(known);
  return Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && !name.startsWith(TEST_PREFIX) && !knownSet.has(name))
    .sort()
    .map((name) => ({ name, nearest: nearestName(name, known) }));
}

/** The warning for one unknown variable, in words. */
export function unknownSettingWarning(setting: UnknownSetting): string {
  const hint =
    setting.nearest === undefined ? 'see .env.example for every setting' : `did you mean ${setting.nearest}?`;
  return `${setting.name} is not a coregate setting and is ignored (${hint})`;
}
