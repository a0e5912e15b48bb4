/**
 * Waits until a server process has read every byte its clients sent it, so that a test
 * signals the server only once its requests are in flight there, however slowly the
 * machine schedules it. A fixed sleep guessed that moment: on a loaded host the server had
 * not read some requests yet, took them as arriving during the shutdown and answered 503.
 *
 * Linux's /proc/net/tcp and /proc/net/tcp6 list every socket with its receive queue, the
 * bytes the kernel holds that no process has read (proc(5)). A server's side of a
 * connection has the server's port as its local port; once each such established
 * connection's queue is empty, the server has read its requests (Node hands what it reads
 * to the HTTP parser at once, and the request reaches the app's hooks in the same turn).
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
const ESTABLISHED = '01';

interface Queues {
  /** Established connections whose local port is the server's. */
  readonly connections: number;
  /** Bytes the server has not read yet, over all those connections. */
  readonly unread: number;
}

function serverSideQueues(port: number): Queues {
  let connections = 0;
  let unread = 0;
  for (const table of TABLES) {
    if (!existsSync(table)) continue;
    // "sl local_address rem_address st tx_queue:rx_queue …", addresses as HEXADDR:HEXPORT.
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 5 || fields[3] !== ESTABLISHED) continue;
      if (Number.parseInt(fields[1]!.split(':').at(-1)!, 16) !== port) continue;
      connections += 1;
      unread += Number.parseInt(fields[4]!.split(':')[1]!, 16);
    }
  }
  return { connections, unread };
}

/**
 * Resolves once at least `connections` connections to `port` are established and the
 * server has read everything sent on all of them. Call it after the requests were handed to
 * the kernel (`ClientRequest`'s 'finish'). Where /proc/net/tcp does not exist (not Linux),
 * it falls back to a short pause, which a slow machine can outrun.
 */
export async function untilServerHasRead(port: number, connections: number, timeoutMs = 30_000): Promise<void> {
  if (!existsSync(TABLES[0]!)) {
    await sleep(150);
    return;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const queues = serverSideQueues(port);
    if (queues.connections >= connections && queues.unread === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `the server on port ${port} did not read its requests within ${timeoutMs} ms: ` +
          `${queues.connections} connections, ${queues.unread} bytes unread`,
      );
    await sleep(10);
  }
}
