/**
 * An OTLP/HTTP trace receiver of the tests' own, standing in for an OpenTelemetry Collector
 * (its `POST /v1/traces`): it keeps each request's raw body, for scans for secrets, and the
 * spans decoded from OTLP/JSON or OTLP/protobuf (the `ExportTraceServiceRequest` message of
 * opentelemetry-proto, read field by field: the exporters' own packages encode but do not decode).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** Attributes of the service that sent it (`service.name`, …). */
  readonly resource: Readonly<Record<string, string | number | boolean>>;
  /** 2: error. */
  readonly statusCode: number;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request body as received (JSON text, or protobuf bytes as latin1). */
  readonly bodies: string[] = [];
  readonly headers: IncomingHttpHeaders[] = [];
  private server: Server | undefined;
  private waiters: Array<() => void> = [];
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.headers.push(req.headers);
        const json = String(req.headers['content-type']).includes('json');
        this.bodies.push(body.toString(json ? 'utf8' : 'latin1'));
        this.spans.push(...(json ? fromJson(body.toString('utf8')) : fromProtobuf(body)));
        res
          .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
          .end(json ? '{}' : '');
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
    return this;
  }

  /** Waits for the next export to arrive. */
  nextExport(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

// ---------------------------------------------------------------------------
// OTLP/JSON (ids as hex, per the OTLP specification's JSON encoding).

interface JsonValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface JsonKeyValue {
  key: string;
  value: JsonValue;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? [])
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue ??
      '';
  return out;
}

function fromJson(text: string): ReceivedSpan[] {
  const request = JSON.parse(text) as {
    resourceSpans?: Array<{
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: Array<{
        spans?: Array<{
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonKeyValue[];
          status?: { code?: number };
        }>;
      }>;
    }>;
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        resource,
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

// ---------------------------------------------------------------------------
// OTLP/protobuf: the protobuf wire format (varints, length-delimited fields, fixed 32/64).

type Field = { readonly number: number; readonly varint?: bigint; readonly bytes?: Buffer };

function varint(buffer: Buffer, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  for (let at = 0; at < buffer.length;) {
    const [key, next] = varint(buffer, at);
    at = next;
    const number = Number(key >> 3n);
    switch (Number(key & 7n)) {
      case 0: {
        const [value, after] = varint(buffer, at);
        out.push({ number, varint: value });
        at = after;
        break;
      }
      case 1:
        out.push({ number, bytes: buffer.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const [length, after] = varint(buffer, at);
        out.push({ number, bytes: buffer.subarray(after, after + Number(length)) });
        at = after + Number(length);
        break;
      }
      case 5:
        out.push({ number, bytes: buffer.subarray(at, at + 4) });
        at += 4;
        break;
      default:
        throw new Error(`unexpected protobuf wire type in field ${number}`);
    }
  }
  return out;
}

const all = (list: Field[], number: number) => list.filter((field) => field.number === number);
const one = (list: Field[], number: number) => all(list, number)[0];

/** `KeyValue { string key = 1; AnyValue value = 2 }`, `AnyValue { string 1; bool 2; int64 3; double 4 }`. */
function protoAttributes(list: Field[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const entry of list) {
    const pair = fields(entry.bytes!);
    const key = one(pair, 1)?.bytes?.toString('utf8') ?? '';
    const value = fields(one(pair, 2)?.bytes ?? Buffer.alloc(0))[0];
    if (value === undefined) continue;
    out[key] =
      value.number === 1
        ? value.bytes!.toString('utf8')
        : value.number === 2
          ? value.varint === 1n
          : value.number === 3
            ? Number(value.varint)
            : value.number === 4
              ? value.bytes!.readDoubleLE(0)
              : '';
  }
  return out;
}

/** `ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 }` and what it holds. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return all(fields(body), 1).flatMap((resourceSpans) => {
    const rs = fields(resourceSpans.bytes!);
    const resource = protoAttributes(all(fields(one(rs, 1)?.bytes ?? Buffer.alloc(0)), 1));
    return all(rs, 2).flatMap((scopeSpans) =>
      all(fields(scopeSpans.bytes!), 2).map((encoded) => {
        const span = fields(encoded.bytes!);
        const hex = (number: number) => one(span, number)?.bytes?.toString('hex') ?? '';
        const status = fields(one(span, 15)?.bytes ?? Buffer.alloc(0));
        return {
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: one(span, 5)?.bytes?.toString('utf8') ?? '',
          kind: Number(one(span, 6)?.varint ?? 0n),
          attributes: protoAttributes(all(span, 9)),
          resource,
          statusCode: Number(one(status, 3)?.varint ?? 0n),
        };
      }),
    );
  });
}

/** `00-{trace id}-{parent id}-{flags}` (W3C Trace Context §3.2), parsed; `undefined` when malformed. */
export function parseTraceparent(value: unknown): { traceId: string; parentId: string } | undefined {
  const match = typeof value === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(value) : null;
  return match ? { traceId: match[1]!, parentId: match[2]! } : undefined;
}
