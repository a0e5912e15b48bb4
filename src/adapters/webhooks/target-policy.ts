/**
 * Where webhooks may be sent (docs/behaviour.md#webhook-targets). In production mode:
 * `https://` only, and never to loopback, private, link-local or otherwise non-public addresses
 * (a platform must not turn coregate into a probe of the bank's network) unless
 * `COREGATE_WEBHOOK_ALLOW_PRIVATE=true`. Checked when an endpoint is added and again at every
 * connection, on the address actually connected to (see `undici-webhook-sender.ts`), so a name
 * re-pointed after the check (DNS rebinding) gains nothing.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookTargetGuard } from '../../ports/webhook-sender.js';

export interface TargetPolicy {
  /** Production mode: `https://` and public addresses only. */
  readonly production: boolean;
  /** Lifts the address rule (on-premises receivers). */
  readonly allowPrivate: boolean;
}

/**
 * IPv4-compatible IPv6 addresses (`::a.b.c.d`, RFC 4291 §2.5.5.1): deprecated, never
 * a public receiver's address, and a way to write `127.0.0.1` as `[::7f00:1]` that
 * ipaddr.js files under `unicast`.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * True for an address on the public internet: ipaddr.js's `unicast` range, after
 * unwrapping IPv4-mapped IPv6 (`::ffff:a.b.c.d`, judged as the IPv4 address). The
 * other forms embedding an IPv4 address are never public: IPv4-compatible (`::/96`),
 * IPv4-translated (`::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4
 * and Teredo fall outside `unicast`, or in the compatible range above.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === 'unicast';
}

/** Whether the address rule applies. */
export function checksAddresses(policy: TargetPolicy): boolean {
  return policy.production && !policy.allowPrivate;
}

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why a name or address literal is refused, in the words the operator sees. */
export const NON_PUBLIC =
  'resolves to a loopback, private or link-local address (set COREGATE_WEBHOOK_ALLOW_PRIVATE=true for on-premises receivers)';

/**
 * What the policy says of `url` without resolving its name: the scheme, credentials,
 * and an address literal's range. Applied when an endpoint is added and again at
 * every send (an endpoint added by a development-mode command, or before the
 * policy changed, is held to the server's policy); names are checked on the
 * address connected to.
 */
export function urlProblem(url: URL, policy: TargetPolicy): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (!policy.production) return undefined;
  if (url.protocol !== 'https:') return 'must be https:// in production mode';
  if (checksAddresses(policy) && isIP(hostOf(url)) && !isPublicAddress(hostOf(url))) return NON_PUBLIC;
  return undefined;
}

export class WebhookTargetPolicy implements WebhookTargetGuard {
  constructor(
    private readonly policy: TargetPolicy,
    /** Resolves a name to its addresses; DNS by default (tests inject their own). */
    private readonly resolve: (host: string) => Promise<string[]> = async (host) =>
      (await lookup(host, { all: true })).map((entry) => entry.address),
  ) {}

  async problem(value: string): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return 'is not a valid URL';
    }
    const problem = urlProblem(url, this.policy);
    if (problem || !checksAddresses(this.policy) || isIP(hostOf(url))) return problem;
    let addresses: string[];
    try {
      addresses = await this.resolve(hostOf(url));
    } catch {
      return 'does not resolve';
    }
    if (addresses.length === 0) return 'does not resolve';
    if (!addresses.every(isPublicAddress)) return NON_PUBLIC;
    return undefined;
  }
}
