/**
 * What every coregate log line must be (docs/operations.md#logs): one JSON object with each key
 * once (a log reader keeps either of two `institution` keys, and which one is its own choice),
 * and, when a request caused it, that request's id as `reqId`.
 */
import assert from 'node:assert/strict';
import { firstDuplicateKey } from '../../src/domain/json-duplicate-keys.js';

/**
 * Fails on a line that is not JSON, names a key twice, or (when `requestCaused` says the line
 * belongs to a request) has no `reqId`. Returns the parsed lines.
 */
export function assertLogLines(
  lines: readonly string[],
  requestCaused: (line: Record<string, unknown>) => boolean,
): Record<string, unknown>[] {
  return lines
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const duplicate = firstDuplicateKey(line);
      assert.equal(duplicate, undefined, `a key written twice (${String(duplicate?.join('.'))}): ${line}`);
      if (requestCaused(parsed)) {
        assert.equal(typeof parsed['reqId'], 'string', `a line a request caused, without its reqId: ${line}`);
      }
      return parsed;
    });
}
