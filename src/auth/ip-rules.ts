/**
 * Per-key IP rules: `ip_whitelist` and `ip_blacklist` as IPv4/IPv6 CIDR blocks (a bare address is a
 * single-host block). The blacklist wins; an empty whitelist allows every caller.
 */
import { formatIpAddress, parseIpAddress, type IpAddress } from './ip-address';

export interface CidrBlock {
  version: 4 | 6;
  /** Network address with the host bits cleared. */
  network: bigint;
  prefixLength: number;
}

export type IpRuleVerdict = 'allowed' | 'blacklisted' | 'not_whitelisted';

const BITS = { 4: 32, 6: 128 } as const;

function mask(version: 4 | 6, prefixLength: number): bigint {
  const bits = BigInt(BITS[version]);
  const all = (1n << bits) - 1n;
  return (all >> BigInt(prefixLength)) ^ all;
}

/** Parses `10.0.0.0/8`, `2001:db8::/32`, `::ffff:10.0.0.0/104` (→ `10.0.0.0/8`) or a bare address. */
export function parseCidr(input: string): CidrBlock | undefined {
  const text = input.trim();
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIpAddress(addressText);
  if (!address) return undefined;
  const written6 = addressText.includes(':');
  let prefixLength: number;
  if (slash < 0) {
    prefixLength = BITS[address.version];
  } else {
    const prefixText = text.slice(slash + 1);
    if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
    prefixLength = Number(prefixText);
    if (prefixLength > (written6 ? 128 : 32)) return undefined;
    // An IPv4-mapped IPv6 block is an IPv4 block 96 bits shorter; below /96 it would span non-mapped space.
    if (written6 && address.version === 4) {
      if (prefixLength < 96) return undefined;
      prefixLength -= 96;
    }
  }
  // Host bits set (`10.0.0.1/8`) are cleared rather than refused: the intent is unambiguous.
  return { version: address.version, network: address.value & mask(address.version, prefixLength), prefixLength };
}

export function formatCidr(block: CidrBlock): string {
  return `${formatIpAddress({ version: block.version, value: block.network })}/${block.prefixLength}`;
}

export function cidrContains(block: CidrBlock, address: IpAddress): boolean {
  return block.version === address.version && (address.value & mask(block.version, block.prefixLength)) === block.network;
}

/** Parsed rule lists, reused across requests of one cached key. */
export interface CompiledIpRules {
  whitelist: CidrBlock[];
  blacklist: CidrBlock[];
}

/** Unparsable entries are dropped here: they are refused when a key is written, so none should exist. */
export function compileIpRules(whitelist: readonly string[], blacklist: readonly string[]): CompiledIpRules {
  const parse = (list: readonly string[]) => list.map(parseCidr).filter((block): block is CidrBlock => block !== undefined);
  return { whitelist: parse(whitelist), blacklist: parse(blacklist) };
}

export function evaluateIpRules(rules: CompiledIpRules, clientIp: string): IpRuleVerdict {
  const address = parseIpAddress(clientIp);
  if (rules.whitelist.length === 0 && rules.blacklist.length === 0) return 'allowed';
  // An unparsable caller address cannot be proven outside a blacklist: denied when any rule exists (fail closed).
  if (!address) return rules.whitelist.length > 0 ? 'not_whitelisted' : 'blacklisted';
  if (rules.blacklist.some((block) => cidrContains(block, address))) return 'blacklisted';
  if (rules.whitelist.length > 0 && !rules.whitelist.some((block) => cidrContains(block, address))) return 'not_whitelisted';
  return 'allowed';
}

/** Compiled rules memoized per rule array, so a cached key's lists are parsed once. */
export function createIpRuleEvaluator(): (whitelist: readonly string[], blacklist: readonly string[], clientIp: string) => IpRuleVerdict {
  const compiled = new WeakMap<readonly string[], WeakMap<readonly string[], CompiledIpRules>>();
  return (whitelist, blacklist, clientIp) => {
    let byBlacklist = compiled.get(whitelist);
    if (!byBlacklist) {
      byBlacklist = new WeakMap();
      compiled.set(whitelist, byBlacklist);
    }
    let rules = byBlacklist.get(blacklist);
    if (!rules) {
      rules = compileIpRules(whitelist, blacklist);
      byBlacklist.set(blacklist, rules);
    }
    return evaluateIpRules(rules, clientIp);
  };
}
