/**
 * The ceiling: a bare node:http server answering every request with one fixed
 * JSON body (the accounts answer coregate gives), so every other figure can be
 * read against what this machine does with no work at all.
 *
 * Usage: node raw-server.mjs BODY_FILE   (listens on 127.0.0.1, a free port)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2]);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`raw server listening on http://127.0.0.1:${server.address().port}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
