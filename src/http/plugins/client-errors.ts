/**
 * Answers to requests that never reach a route because Node's HTTP parser or its
 * timers refused them — a malformed request line, headers over Node's size limit,
 * a request (headers and body) not complete within the request timeout — in the
 * form the path calls for: the OAuth `{error}` form on `/oauth2/*`, the gateway
 * envelope (docs/behaviour.md#envelope) elsewhere, instead of Node's or Fastify's defaults. The
 * connection is closed after the answer: the parser's state cannot be trusted.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/** The request line's path, from what the parser saw (undefined when it could not read one). */
function pathOf(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const line = rawPacket.subarray(0, Math.min(rawPacket.length, 2048)).toString('latin1').split('\r\n', 1)[0] ?? '';
  return line.split(' ')[1];
}

interface Refusal {
  readonly status: number;
  readonly reason: string;
  readonly name: string;
  readonly className: string;
  readonly message: string;
}

function refusalFor(code: string | undefined): Refusal {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      name: 'Timeout',
      className: 'timeout',
      message: 'the request was not complete in time',
    };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      name: 'RequestHeaderFieldsTooLarge',
      className: 'request-header-fields-too-large',
      message: 'the request headers are too large',
    };
  }
  return {
    status: 400,
    reason: 'Bad Request',
    name: 'BadRequest',
    className: 'bad-request',
    message: 'the request is malformed',
  };
}

/**
 * The server's `clientError` handler, and what remembers, from each request's first
 * hook, which path a connection's current request is for (a timeout has no packet to read).
 */
export function clientErrorHandling(logger: FastifyBaseLogger) {
  const currentPath = new WeakMap<Socket, string>();
  return {
    onRequest(request: IncomingMessage): void {
      currentPath.set(request.socket, request.url ?? '/');
    },
    handler: (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const refusal = refusalFor(error.code);
      const path = pathOf(error.rawPacket) ?? currentPath.get(socket) ?? '/';
      const oauth = path.startsWith('/oauth2/');
      const body = JSON.stringify(
        oauth
          ? { error: 'invalid_request', error_description: refusal.message }
          : {
              name: refusal.name,
              className: refusal.className,
              message: refusal.message,
              code: refusal.status,
              data: {},
            },
      );
      const type = oauth ? 'application/json;charset=UTF-8' : 'application/json; charset=utf-8';
      logger.info({ err: { code: error.code }, status: refusal.status }, 'request refused by the HTTP parser');
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const extra = oauth ? 'Cache-Control: no-store\r\nPragma: no-cache\r\n' : '';
      socket.end(
        `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
      );
      // A peer that never reads must not hold the socket.
      socket.setTimeout(1000, () => socket.destroy());
    },
  };
}

/**
 * Node's server timers for `requestTimeoutMs` (COREGATE_REQUEST_TIMEOUT_MS): the whole
 * request, headers and body, must arrive within it; the headers within 10 s (or the
 * request timeout if shorter). Node looks at its connections every
 * `connectionsCheckingInterval` (30 s by default): checked more often, so a timeout
 * fires close to its time.
 */
export function serverTimeouts(requestTimeoutMs: number): {
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: Math.min(requestTimeoutMs, 10_000),
    connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
  };
}
