/**
 * The deadline of one core call: a signal the exchange (`answer-exchange.ts`) aborts
 * the request on after `ms`, released when the call ends.
 *
 * Not an AbortController: building one, with a listener added and removed, costs several
 * times an EventEmitter's CPU per call on Node 20 (EventTarget; docs/benchmarks.md).
 * Not `AbortSignal.timeout` either: its timer outlives the call, firing `ms` later all the
 * same for a call long answered.
 */
import { EventEmitter } from 'node:events';

/** What undici reads of a signal that is an EventEmitter. */
class DeadlineSignal extends EventEmitter {
  aborted = false;
  reason: Error | undefined = undefined;
}

export class CallDeadline {
  readonly signal = new DeadlineSignal();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => {
      this.signal.aborted = true;
      this.signal.reason = Object.assign(new Error(`the core call's deadline of ${ms} ms passed`), {
        name: 'TimeoutError',
      });
      this.signal.emit('abort');
    }, ms);
  }

  /** Whether the deadline passed before {@link release}. */
  get expired(): boolean {
    return this.signal.aborted;
  }

  /** The call is over: the timer goes. */
  release(): void {
    clearTimeout(this.timer);
  }
}
