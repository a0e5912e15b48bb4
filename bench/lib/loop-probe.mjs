/**
 * Preloaded into coregate (`node --import`, `startCoregate({loopProbe: true})`): answers
 * any request on its own loopback port, `BENCH_LOOP_PROBE_PORT`, with how long the process's
 * event loop has been busy and idle so far (`performance.eventLoopUtilization()`, in ms).
 * Read before and after a measured run, it says what share of the window the event loop was
 * busy: near 100% the server is bounded by its one thread's CPU; well below it, by waiting
 * (for the database, the core, a pool). Its own cost is two requests per measured run; it
 * keeps nothing open that would hold up coregate's exit.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const port = Number(process.env.BENCH_LOOP_PROBE_PORT);
// With workers, only the supervisor would get the port: the suite probes one-process servers.
if (port && cluster.isPrimary) {
  const server = createServer((req, res) => {
    req.resume();
    const { active, idle } = performance.eventLoopUtilization();
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ active, idle }));
  });
  server.on('connection', (socket) => socket.unref());
  server.listen(port, '127.0.0.1');
  server.unref();
}
