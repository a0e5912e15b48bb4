/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and summarises where the CPU went:
 * self time by function, self time by area (package, Node subsystem, coregate
 * module) and total (inclusive) time of coregate's own functions. Only samples
 * inside `window` (milliseconds from the start of the profile) count, so that
 * start-up and shutdown stay out; idle samples never count.
 */
import { readFileSync } from 'node:fs';

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

function shortLocation(url) {
  if (!url) return '';
  const dist = url.indexOf('/dist/src/');
  if (dist !== -1) return `src/${url.slice(dist + '/dist/src/'.length).replace(/\.js$/, '.ts')}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return url.slice(modules + '/node_modules/'.length);
  return url.replace(/^file:\/\//, '');
}

/** The package, Node subsystem or coregate layer a function belongs to. */
export function areaOf(callFrame) {
  const { functionName, url } = callFrame;
  if (SPECIAL.has(functionName)) return functionName === '(program)' ? 'V8/native (program)' : functionName;
  if (!url) return 'V8/native builtins';
  if (url.startsWith('node:')) {
    const module = url.replace(/^node:(internal\/)?/, '').split('/')[0];
    return `node:${module}`;
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = url.indexOf('/dist/src/');
  if (dist !== -1) {
    const parts = url.slice(dist + '/dist/src/'.length).split('/');
    return `coregate src/${parts.length > 2 ? parts.slice(0, 2).join('/') : parts[0].replace(/\.js$/, '.ts')}`;
  }
  return 'other';
}

function functionKey(callFrame) {
  const name = callFrame.functionName || '(anonymous)';
  if (SPECIAL.has(name) || !callFrame.url) return name;
  return `${name} ${shortLocation(callFrame.url)}:${callFrame.lineNumber + 1}`;
}

/** What a few opaque entries are, for readers of the summary. */
const HINTS = [
  [
    /^\(anonymous\) node:internal\/crypto\/util:4\d\d$/,
    "WebCrypto job of jose's Ed25519 sign/verify: queued to libuv's thread pool, whose thread, on the same pinned core, preempts the main thread right here — so its cost is charged here (it matches one sign per token, one verify per gateway call)",
  ],
  [/^writev$/, 'socket writes (syscall; on loopback the kernel delivers to the peer inside it)'],
  [/^anonymous\d+( |$)/, 'code generated at run time (fast-json-stringify serializers of the response schemas)'],
  [/^writeLatin1String$/, 'copying strings into socket buffers (HTTP heads and JSON bodies)'],
  [/^\(program\)$/, 'native code outside JavaScript (V8, libuv, syscalls)'],
  [/^V8\/native builtins$/, 'functions without a script: syscalls such as writev, JSON, structuredClone, …'],
  [
    /^node:crypto$/,
    'mostly the WebCrypto jobs (Ed25519 token signatures; ECDSA P-256 of DPoP proofs), then HMAC and AES-GCM',
  ],
];

function hintFor(key) {
  return HINTS.find(([pattern]) => pattern.test(key))?.[1];
}

function top(map, total, limit) {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([key, micros]) => ({
      key,
      ms: Math.round(micros / 100) / 10,
      share: Math.round((micros / total) * 1000) / 10,
      ...(hintFor(key) ? { hint: hintFor(key) } : {}),
    }));
}

export function summariseProfile(file, { window, limit = 25 } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map();
  const areas = new Map();
  const inclusive = new Map();
  let busy = 0;
  let idle = 0;
  let at = 0;
  for (let index = 0; index < profile.samples.length; index += 1) {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    const ms = at / 1000;
    if (window && (ms < window.fromMs || ms > window.toMs)) continue;
    const node = nodes.get(profile.samples[index]);
    if (!node) continue;
    if (node.callFrame.functionName === '(idle)') {
      idle += delta;
      continue;
    }
    busy += delta;
    const key = functionKey(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + delta);
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + delta);
    // Inclusive time of coregate's functions: each function once per stack.
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const frame = nodes.get(id).callFrame;
      if (!frame.url.includes('/dist/src/')) continue;
      const name = functionKey(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
  }
  return {
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    selfTop: top(self, busy, limit),
    areas: top(areas, busy, 20),
    coregateInclusive: top(inclusive, busy, 15),
  };
}
