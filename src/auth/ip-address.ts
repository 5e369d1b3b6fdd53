/**
 * IP address parsing to integers, so CIDR matching is plain arithmetic on one representation.
 * IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`, what a dual-stack socket reports for IPv4 peers)
 * are normalized to IPv4: a rule written `10.0.0.0/8` must match them.
 */

export interface IpAddress {
  version: 4 | 6;
  /** The address as an unsigned integer of 32 (IPv4) or 128 (IPv6) bits. */
  value: bigint;
}

const MAPPED_PREFIX = 0xffffn << 32n;
const MAPPED_MASK = ~((1n << 32n) - 1n) & ((1n << 128n) - 1n);

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // Leading zeros are refused: some parsers read them as octal, so `010` is ambiguous.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseHextets(groups: string[]): bigint[] | undefined {
  const values: bigint[] = [];
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    values.push(BigInt(parseInt(group, 16)));
  }
  return values;
}

function parseIpv6(input: string): bigint | undefined {
  const text = input.replace(/%.*$/, ''); // a zone id (`fe80::1%eth0`) says nothing about the address
  if (text.length === 0 || (text.match(/::/g) ?? []).length > 1) return undefined;
  let head = text;
  let tailIpv4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    tailIpv4 = parseIpv4(text.slice(lastColon + 1));
    if (tailIpv4 === undefined) return undefined;
    head = text.slice(0, lastColon + 1);
    // `::ffff:1.2.3.4` leaves `::ffff:`; a lone trailing colon must be part of `::`.
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groupsWanted = tailIpv4 === undefined ? 8 : 6;
  let groups: bigint[];
  if (head.includes('::')) {
    const [left, right] = head.split('::');
    const leftGroups = left === '' ? [] : parseHextets(left.split(':'));
    const rightGroups = right === '' ? [] : parseHextets(right.split(':'));
    if (!leftGroups || !rightGroups) return undefined;
    const missing = groupsWanted - leftGroups.length - rightGroups.length;
    if (missing < 1) return undefined;
    groups = [...leftGroups, ...Array<bigint>(missing).fill(0n), ...rightGroups];
  } else {
    const parsed = head === '' ? [] : parseHextets(head.split(':'));
    if (!parsed || parsed.length !== groupsWanted) return undefined;
    groups = parsed;
  }
  let value = 0n;
  for (const group of groups) value = (value << 16n) | group;
  if (tailIpv4 !== undefined) value = (value << 32n) | tailIpv4;
  return value;
}

/** Parses an IPv4 or IPv6 address; IPv4-mapped IPv6 becomes IPv4. Undefined when not an address. */
export function parseIpAddress(input: string): IpAddress | undefined {
  const text = input.trim();
  if (text.includes(':')) {
    const value = parseIpv6(text);
    if (value === undefined) return undefined;
    if ((value & MAPPED_MASK) === MAPPED_PREFIX) return { version: 4, value: value & 0xffffffffn };
    return { version: 6, value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { version: 4, value };
}

/** The canonical text of an address: dotted quad, or RFC 5952 compressed lowercase IPv6. */
export function formatIpAddress(address: IpAddress): string {
  if (address.version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((address.value >> shift) & 0xffffn));
  // The longest run of two or more zero groups becomes `::` (the first one on a tie).
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** Normalizes an address text (IPv4-mapped → IPv4, canonical IPv6); returns the input when unparsable. */
export function normalizeIpAddress(input: string): string {
  const parsed = parseIpAddress(input);
  return parsed ? formatIpAddress(parsed) : input.trim();
}
