/**
 * How far V8 lets the old generation grow past what its last full collection kept. Left to
 * itself it picks a large factor when the program allocates fast, as a server under load does:
 * the old generation then holds several times the live heap in garbage between full
 * collections, and the peak RSS under load reaches the target of docs/benchmarks.md#targets.
 * A fixed, smaller factor trades a few more full collections for a much smaller peak at no
 * measurable CPU per request; the measurements are in docs/benchmarks.md (peak RSS).
 *
 * `--heap-growing-percent` is not accepted in NODE_OPTIONS, so the service sets it for
 * itself as it starts; V8 reads it at each full collection. An operator who passes the
 * flag to node (`node --heap-growing-percent=N bin/coregate serve`) keeps theirs.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

const FLAG = '--heap-growing-percent';

/** Sets the growing factor unless node was started with one; says whether it did. */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): boolean {
  if (execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`) || arg.startsWith('--heap_growing_percent')))
    return false;
  setFlags(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return true;
}
