/**
 * IP allow-lists of clients: CIDR blocks, IPv4 and IPv6. Node's own `BlockList`
 * does the matching; this module adds validation and IPv4-mapped IPv6 handling
 * (a dual-stack socket reports `::ffff:10.0.0.1` for an IPv4 caller).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export type CidrCheck = { ok: true; cidr: string } | { ok: false; reason: string };

/** Validates one CIDR block (a bare address counts as /32 or /128) and returns its canonical text. */
export function parseCidr(text: string): CidrCheck {
  const [address, prefixText, extra] = text.trim().split('/');
  if (address === undefined || extra !== undefined) return { ok: false, reason: `"${text}" is not a CIDR block` };
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (family === 0) return { ok: false, reason: `"${text}" does not start with an IPv4 or IPv6 address` };
  const maxPrefix = family === 4 ? 32 : 128;
  if (prefixText === undefined) return { ok: true, cidr: `${address}/${maxPrefix}` };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) {
    return { ok: false, reason: `"${text}" has a prefix length outside 0-${maxPrefix}` };
  }
  return { ok: true, cidr: `${address}/${Number(prefixText)}` };
}

/** Strips the IPv4-mapped IPv6 prefix so that IPv4 blocks match dual-stack callers. */
function unmapped(ip: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return match?.[1] ?? ip;
}

/** A compiled allow-list; an empty list allows every address. */
export class IpAllowList {
  private readonly blocks = new BlockList();
  readonly isOpen: boolean;

  constructor(cidrs: readonly string[]) {
    this.isOpen = cidrs.length === 0;
    for (const cidr of cidrs) {
      const [address = '', prefix = ''] = cidr.split('/');
      this.blocks.addSubnet(address, Number(prefix), isIPv4(address) ? 'ipv4' : 'ipv6');
    }
  }

  allows(ip: string): boolean {
    if (this.isOpen) return true;
    const address = unmapped(ip);
    if (isIPv4(address)) return this.blocks.check(address, 'ipv4');
    if (isIPv6(address)) return this.blocks.check(address, 'ipv6');
    return false;
  }
}
