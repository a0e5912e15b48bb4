/**
 * Sending webhook deliveries to platforms' receivers, and the policy on where
 * they may point (production mode wants `https://` and public addresses:
 * docs/behaviour.md#webhook-targets).
 */

/** A receiver's answer: its status only — the body is never kept or logged. */
export interface ReceiverAnswer {
  readonly status: number;
}

export interface WebhookSender {
  /**
   * POSTs `body` with `headers` to `url` within the sender's deadline (10 s).
   * Throws {@link WebhookSendFailed} when no answer came (refused target, DNS,
   * connection, timeout).
   */
  send(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<ReceiverAnswer>;
  close(): Promise<void>;
}

/** No answer from the receiver; `reason` is short and safe to store and log. */
export class WebhookSendFailed extends Error {
  /** The target policy refused the URL: sending again would be refused again, so the delivery fails at once. */
  readonly refused: boolean;

  constructor(
    readonly reason: string,
    options: { readonly refused?: boolean } = {},
  ) {
    super(`webhook delivery failed: ${reason}`);
    this.refused = options.refused ?? false;
  }
}

export interface WebhookTargetGuard {
  /** Why `url` may not receive webhooks here, or `undefined` when it may (resolves DNS when the policy needs it). */
  problem(url: string): Promise<string | undefined>;
}
