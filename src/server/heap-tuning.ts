/**
 * How far V8 lets the old generation grow past what its last full collection kept. Left to
 * itself it picks a factor between 1.1 and 4 from how fast the program allocates, and a server
 * under load allocates fast: coregate's live heap stays near 30 MB, yet between full
 * collections the old generation held up to 90 MB of garbage, and the process's peak RSS under
 * the token load was ~200 MB (the target in docs/benchmarks.md#targets is < 200). A fixed 50 %
 * measured, in rounds taken in turn on the same build: peak RSS 199-202 -> 140 MB, CPU per
 * request unchanged (174 vs 174 µs, 175 vs 175 µs); 25 % gave 132 MB, 100 % 156 MB.
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
