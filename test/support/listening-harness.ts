/**
 * A harness listening on a free port whose issuer is the URL it is reached at, and whose
 * clock reads the real time: for client libraries that sign with the time of day (client
 * assertions, DPoP proofs) and check the issuer they discovered.
 */
import type { Backend } from './backends.js';
import { createHarness, type Harness, type HarnessOptions } from './harness.js';
import { freePort } from './free-port.js';

export async function listeningHarness(
  backend: Backend,
  options: HarnessOptions = {},
): Promise<{ h: Harness; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const h = await createHarness(backend, { ...options, env: { COREGATE_ISSUER: url, ...options.env } });
  h.clock.set(new Date());
  await h.app.listen({ port, host: '127.0.0.1' });
  return { h, url };
}
