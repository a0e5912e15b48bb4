/**
 * One HTTP exchange with the core through undici's dispatch handler: the answer's
 * status and its body as text, read chunk by chunk up to a size limit.
 *
 * Not `dispatcher.request()` with `body.text()`, the library's own way: that wraps every
 * answer's body in a Readable stream, and measured more CPU for a whole accounts request
 * than this handler, which receives the chunks as they are parsed
 * (docs/benchmarks.md#targets, "read the core's answer"). It is how undici's own `stream()`
 * and `pipeline()` work.
 */
import type { Dispatcher } from 'undici';
import type { CallDeadline } from './call-deadline.js';

/** The answer was larger than allowed; the exchange was aborted at that chunk. */
export class AnswerTooLarge extends Error {
  constructor() {
    super('the answer is too large');
    this.name = 'AnswerTooLarge';
  }
}

export interface Answer {
  readonly status: number;
  readonly text: string;
}

class AnswerCollector implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange was aborted before undici started it (the deadline passed while it queued). */
  private abortedWith: Error | undefined;
  private settled = false;

  constructor(
    private readonly maxBytes: number,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  abort(reason: Error): void {
    if (this.controller) {
      this.controller.abort(reason);
      return;
    }
    // Still queued for a connection: the caller hears of its deadline now, not once a
    // connection frees up, and the request is dropped when undici starts it.
    this.abortedWith = reason;
    this.onResponseError(undefined, reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortedWith) controller.abort(this.abortedWith);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      controller.abort(new AnswerTooLarge());
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.resolve({ status: this.status, text: body.toString('utf8') });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/**
 * Sends `options` through `dispatcher` and reads the whole answer; rejects with
 * undici's error (its `code` says what failed), with {@link AnswerTooLarge}, or with
 * the deadline's reason once it passes (the exchange is aborted then, queued or not).
 */
export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limits: { readonly maxBytes: number; readonly deadline: CallDeadline },
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const collector = new AnswerCollector(limits.maxBytes, resolve, reject);
    const { signal } = limits.deadline;
    if (signal.aborted) {
      reject(signal.reason!);
      return;
    }
    signal.once('abort', () => collector.abort(signal.reason!));
    dispatcher.dispatch(options, collector);
  });
}
