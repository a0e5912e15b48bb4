/**
 * Sends webhook deliveries with undici: a 10 s deadline on the whole attempt,
 * counted from its start on the wire (no connection pool to wait in first),
 * the receiver's answer read up to 4 KiB and dropped (only its status counts,
 * nothing of it is logged), and — when the target policy checks addresses — a
 * DNS lookup hook on the connection itself that refuses non-public addresses,
 * so the address connected to is the address checked.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { inSpan, markFailed, SpanKind, traceHeaders } from '../../ports/tracing.js';
import { WebhookSendFailed, type ReceiverAnswer, type WebhookSender } from '../../ports/webhook-sender.js';
import { checksAddresses, isPublicAddress, NON_PUBLIC, urlProblem, type TargetPolicy } from './target-policy.js';

const WEBHOOK_TIMEOUT_MS = 10_000;
/** Enough to see a receiver's short answer; the rest is not read. */
const MAX_ANSWER_BYTES = 4096;
/** The reason stored and logged when the address connected to (or written in the URL) is not public. */
const REFUSED_NON_PUBLIC =
  'refused: non-public address (COREGATE_WEBHOOK_ALLOW_PRIVATE=true allows on-premises receivers)';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `net.connect`'s `lookup`, refusing names that resolve to non-public addresses. */
function publicOnlyLookup(
  hostname: string,
  options: { all?: boolean; family?: number } | number,
  callback: LookupCallback,
): void {
  const wantsAll = typeof options === 'object' && options.all === true;
  dnsLookup(hostname, { all: true }, (error, addresses) => {
    if (error) return callback(error, wantsAll ? [] : '');
    if (addresses.length === 0 || !addresses.every((entry) => isPublicAddress(entry.address))) {
      const refused = Object.assign(new Error('refused: the name resolves to a non-public address'), {
        code: 'EWEBHOOKPRIVATE',
      });
      return callback(refused, wantsAll ? [] : '');
    }
    if (wantsAll) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

function errorCode(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; cause?: { code?: unknown } };
  const code = candidate?.cause?.code ?? candidate?.code;
  return typeof code === 'string' ? code : undefined;
}

export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly checking: boolean;

  constructor(private readonly policy: TargetPolicy) {
    this.checking = checksAddresses(policy);
    this.agent = new Agent({
      connect: { timeout: WEBHOOK_TIMEOUT_MS, ...(this.checking ? { lookup: publicOnlyLookup } : {}) },
      headersTimeout: WEBHOOK_TIMEOUT_MS,
      bodyTimeout: WEBHOOK_TIMEOUT_MS,
      // No cap on connections per origin: a capped pool queues a request behind a hung
      // one while its deadline runs. The dispatcher bounds how many attempts run at once
      // (per endpoint and in all), so every request goes on the wire when it starts.
      connections: null,
    });
  }

  /**
   * One delivery attempt, in a client span of its own (a trace per attempt: no request waits
   * on it) whose `traceparent` the receiver gets. The span names the receiver's host, never
   * its path or query (a URL may hold the receiver's own secret).
   */
  send(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<ReceiverAnswer> {
    const target = new URL(url);
    return inSpan(
      'webhook deliver',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'server.address': target.hostname,
          ...(headers['webhook-id'] === undefined ? {} : { 'coregate.webhook.id': headers['webhook-id'] }),
        },
      },
      async (span) => {
        const answer = await this.attempt(target, headers, body);
        span.setAttribute('http.response.status_code', answer.status);
        if (answer.status >= 400) markFailed(span, String(answer.status));
        return answer;
      },
    );
  }

  private async attempt(target: URL, headers: Readonly<Record<string, string>>, body: string): Promise<ReceiverAnswer> {
    // The policy at send time too: the endpoint may have been added under another one. An
    // address literal never goes through the lookup hook, so this is where it is checked.
    const refusal = urlProblem(target, this.policy);
    if (refusal)
      throw new WebhookSendFailed(refusal === NON_PUBLIC ? REFUSED_NON_PUBLIC : `refused: the URL ${refusal}`, {
        refused: true,
      });
    const deadline = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
    try {
      const response = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, ...traceHeaders(), 'user-agent': 'coregate-webhooks' },
        body,
        signal: deadline,
      });
      let read = 0;
      for await (const chunk of response.body) {
        read += (chunk as Buffer).length;
        if (read > MAX_ANSWER_BYTES) {
          response.body.destroy();
          break;
        }
      }
      return { status: response.statusCode };
    } catch (error) {
      if (deadline.aborted) throw new WebhookSendFailed(`no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`);
      const code = errorCode(error);
      if (code === 'EWEBHOOKPRIVATE') throw new WebhookSendFailed(REFUSED_NON_PUBLIC, { refused: true });
      throw new WebhookSendFailed(`connection failed (${code ?? (error as Error)?.name ?? 'unknown error'})`);
    }
  }

  /** Drops connections at once: an attempt cut short is sent again after its lease (at least once). */
  close(): Promise<void> {
    return this.agent.destroy();
  }
}
