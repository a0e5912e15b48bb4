/** What the webhook suites share: a harness at the real time (standardwebhooks checks it), its admin operations and a receiver. */
import { adminOperations, type AdminHandlers } from '../../../src/server/admin-operations.js';
import type { Backend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { TestReceiver } from './receiver.js';

export interface WebhookSuite {
  readonly h: Harness;
  readonly admin: AdminHandlers;
  readonly receiver: TestReceiver;
  close(): Promise<void>;
}

/** Opens the suite with `COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS` = `retrySchedule`. */
export async function openWebhookSuite(backend: Backend, retrySchedule: string): Promise<WebhookSuite> {
  const h = await createHarness(backend, { env: { COREGATE_WEBHOOK_RETRY_SCHEDULE_SECONDS: retrySchedule } });
  h.clock.set(new Date());
  const receiver = await new TestReceiver().start();
  return {
    h,
    admin: adminOperations(h.services),
    receiver,
    async close() {
      await receiver.close();
      await h.close();
    },
  };
}
