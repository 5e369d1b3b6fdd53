/**
 * Which network addresses the gateway may connect to on a caller's behalf (image URLs, webhooks):
 * public unicast only. Classification is ipaddr.js's; on top of it, every IPv6 form that carries an
 * IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) is judged by the IPv4 address inside it. Teredo and the local
 * NAT64 prefix `64:ff9b:1::/48` embed an address we cannot trust the position of: refused.
 */
import ipaddr from 'ipaddr.js';

export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/** Decides one resolved address; `allowPrivate` (a test or lab setting) allows every address. */
export type AddressPolicy = (address: string) => AddressVerdict;

function ipv4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address an IPv6 address carries, when it is of a form that carries one. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return ipv4FromParts(p[6], p[7]); // mapped
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return ipv4FromParts(p[6], p[7]); // SIIT (rfc6145)
  if (zeros(0, 6) && (p[6] !== 0 || p[7] > 1)) return ipv4FromParts(p[6], p[7]); // compatible (not :: or ::1)
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return ipv4FromParts(p[6], p[7]); // NAT64 well-known prefix
  if (p[0] === 0x2002) return ipv4FromParts(p[1], p[2]); // 6to4
  return undefined;
}

function ipv4Verdict(address: ipaddr.IPv4): AddressVerdict {
  const range = address.range();
  return range === 'unicast' ? { allowed: true } : { allowed: false, range: `ipv4 ${range}` };
}

/** Public unicast, or the range that refuses it (`ipv4 loopback`, `ipv6 uniqueLocal`, `unparsable`). */
export function classifyAddress(text: string): AddressVerdict {
  const bare = text.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return { allowed: false, range: 'unparsable' };
  const address = ipaddr.parse(bare);
  if (address.kind() === 'ipv4') return ipv4Verdict(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  // A zone id (`fe80::1%eth0`) is link-scoped whatever the address.
  if (v6.zoneId) return { allowed: false, range: 'ipv6 zoned' };
  const inner = embeddedIpv4(v6);
  if (inner) return ipv4Verdict(inner);
  const range = v6.range();
  return range === 'unicast' ? { allowed: true } : { allowed: false, range: `ipv6 ${range}` };
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).allowed;
}

export function addressPolicy(options: { allowPrivate: boolean }): AddressPolicy {
  return options.allowPrivate ? () => ({ allowed: true }) : classifyAddress;
}
