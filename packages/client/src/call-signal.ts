/**
 * One signal per call that fires on the caller's `AbortSignal` or on the call's
 * timeout, whichever comes first, and tells afterwards which one it was: a timeout
 * becomes a `CoregateError`, the caller's abort is rethrown as the caller's reason.
 * (Hand-written instead of `AbortSignal.any` + `AbortSignal.timeout` because those
 * cannot tell the two apart once fired and `any` needs Node ≥ 20.3.)
 */
import { CoregateError } from './errors.js';
import type { AbortSignalLike } from './platform-types.js';

export interface CallSignal {
  readonly signal: AbortSignalLike;
  /** Milliseconds left before the call times out. */
  remainingMs(): number;
  /** The error to throw once `signal` fired: the caller's reason or a timeout error (a plain function: callers pass it on). */
  readonly failure: () => unknown;
  dispose(): void;
}

export function callSignal(timeoutMs: number, outer: AbortSignalLike | undefined): CallSignal {
  const controller = new AbortController();
  const deadline = Date.now() + timeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  // The timer alone must not keep a process alive that has nothing else to do.
  timer.unref?.();
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    remainingMs: () => Math.max(0, deadline - Date.now()),
    failure: () => {
      if (timedOut)
        return new CoregateError({
          status: 0,
          name: 'Timeout',
          className: 'timeout',
          message: `no answer from coregate within ${timeoutMs} ms`,
        });
      return (outer?.reason as unknown) ?? new DOMException('the operation was aborted', 'AbortError');
    },
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** `promise`, or a rejection as soon as `signal` fires (the promise itself goes on for others). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignalLike, failure: () => unknown): Promise<T> {
  if (signal.aborted) return Promise.reject(failure());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(failure());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or rejects with the call's failure when its signal fires first. */
export function pause(ms: number, signal: AbortSignalLike, failure: () => unknown): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return untilAborted(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), signal, failure).finally(() =>
    clearTimeout(timer),
  );
}
