import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Why a URL or address was refused; `dns` when the name does not resolve at all. `devAllows` is true
 * when RUTA_WEBHOOK_ALLOW_INSECURE would have let it through (plain http, a local address).
 */
export class UnsafeUrlError extends Error {
  constructor(
    message: string,
    readonly kind: 'url' | 'address' | 'dns',
    readonly devAllows = kind === 'address',
  ) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/**
 * Only global unicast addresses are reachable. ipaddr.js names every special-purpose block
 * (loopback, private, link-local, CGNAT, multicast, reserved, documentation, unique-local, NAT64,
 * 6to4, Teredo…) and calls the rest "unicast". IPv4-mapped and IPv4-compatible IPv6 forms are
 * judged by the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((p) => p === 0)) {
      // ::a.b.c.d (deprecated IPv4-compatible form) and :: / ::1 themselves.
      // parts always has 8 groups; the defaults only satisfy the type and would answer "not public".
      const [hi = 0, lo = 0] = v6.parts.slice(6);
      if (hi === 0) return false;
      ip = new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
    }
  }
  return ip.range() === 'unicast';
}

export interface Target {
  url: URL;
  hostname: string;
  /** The vetted address to connect to; undefined when insecure mode lets Node resolve normally. */
  address?: string;
  family?: 4 | 6;
}

/** Parses and checks the shape of a webhook URL (scheme, credentials); throws UnsafeUrlError. */
export function parseWebhookUrl(raw: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL', 'url');
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    throw new UnsafeUrlError('must use https://', 'url', url.protocol === 'http:');
  }
  if (url.username || url.password) throw new UnsafeUrlError('must not contain credentials', 'url');
  if (!url.hostname) throw new UnsafeUrlError('must have a host', 'url');
  return url;
}

const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Resolves the host once and refuses it unless every address is public. The caller connects to
 * the returned address (see pinnedLookup), so DNS cannot change between this check and the connect.
 */
export async function vetTarget(raw: string, allowInsecure: boolean): Promise<Target> {
  const url = parseWebhookUrl(raw, allowInsecure);
  const hostname = bare(url.hostname);
  if (allowInsecure) return { url, hostname };
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(hostname)) addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await lookup(hostname, { all: true, verbatim: true });
    } catch (err) {
      throw new UnsafeUrlError(
        `host ${hostname} does not resolve (${(err as { code?: string }).code ?? 'error'})`,
        'dns',
      );
    }
  }
  const first = addresses[0];
  if (first === undefined) throw new UnsafeUrlError(`host ${hostname} does not resolve`, 'dns');
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  if (bad) {
    throw new UnsafeUrlError(
      `host ${hostname} resolves to ${bad.address}, a loopback, private, link-local or reserved address`,
      'address',
    );
  }
  return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for http(s).request that answers the vetted address instead of asking DNS again. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}
