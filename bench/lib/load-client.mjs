/**
 * The suite's side of the load generator (`load-worker.mjs`): one child process
 * on the load CPU for the whole run, driven over IPC.
 */
import { fileURLToPath } from 'node:url';
import { startProcess } from './processes.mjs';

const WORKER = fileURLToPath(new URL('./load-worker.mjs', import.meta.url));

export async function startLoadGenerator(plan) {
  const entry = await startProcess('load generator', {
    command: process.execPath,
    args: [WORKER],
    cpus: plan.pinned ? plan.load : undefined,
    ipc: true,
    readyMessage: true,
    timeoutMs: 15_000,
  });
  let nextId = 0;
  const pending = new Map();
  entry.child.on('message', (message) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(`load generator: ${message.error}`));
  });
  entry.exit.then((how) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`the load generator exited (${JSON.stringify(how)})\n${entry.tail()}`));
    pending.clear();
  });
  const call = (cmd, spec) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      entry.child.send({ id, cmd, spec });
    });
  return {
    pid: entry.pid,
    /** autocannon for `spec.seconds`: `{origin, path, method, headers, body | generator, connections, seconds}`; with `rate` (req/s), paced open loop instead. */
    load: (spec) => call('load', spec),
    /** Signs the DPoP proofs (`spec.dpop`) of the next load of `spec.seconds` now, before its CPU is counted. */
    prepare: (spec) => call('prepare', spec),
    stormPrepare: (spec) => call('stormPrepare', spec),
    storm: (spec) => call('storm', spec),
    async stop() {
      if (entry.child.connected) entry.child.send({ cmd: 'exit' });
      await Promise.race([entry.exit, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await entry.stop(2000);
    },
  };
}
