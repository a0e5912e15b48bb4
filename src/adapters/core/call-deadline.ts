/**
 * The deadline of one core call: an abort signal that fires after `ms`, released when the
 * call ends. `AbortSignal.timeout` would do, but its timer outlives the call: it fires
 * `ms` later all the same, building a DOMException and dispatching an abort event for a
 * call long answered — a cost on every core call that showed in the gateway's profile.
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => this.controller.abort(), ms);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the deadline passed before {@link release}. */
  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  /** The call is over: the timer goes. */
  release(): void {
    clearTimeout(this.timer);
  }
}
