/**
 * The HTTPS policy of the token endpoint, decided from the configuration alone
 * (pure: it reads no file, so it stays beside the configuration).
 */
import { isIPv4 } from 'node:net';
import type { Config } from './config.js';

/** Whether `host` (the listen address) is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  const ipv4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  return ipv4 !== undefined && isIPv4(ipv4) && ipv4.startsWith('127.');
}

/**
 * How token requests may reach coregate (HTTPS only, docs/behaviour.md#https):
 * - `tls`: coregate serves HTTPS itself;
 * - `proxy`: a trusted proxy terminates TLS and says so with `X-Forwarded-Proto: https`;
 * - `loopback`: development on a loopback address without a proxy — plain HTTP allowed;
 * - `refused`: plain HTTP on a reachable address — token requests are refused.
 * Only in `loopback` are token requests over plain HTTP answered.
 */
export type TokenTransport = 'tls' | 'proxy' | 'loopback' | 'refused';

export function tokenTransport(config: Pick<Config, 'tlsCertFile' | 'trustProxy' | 'host'>): TokenTransport {
  if (config.tlsCertFile !== undefined) return 'tls';
  if (config.trustProxy !== false) return 'proxy';
  return isLoopbackHost(config.host) ? 'loopback' : 'refused';
}
