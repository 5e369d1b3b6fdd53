/**
 * The caller's address: the socket peer, unless that peer is a trusted proxy, in which case the
 * `X-Forwarded-For` chain is walked right to left (each hop appended by the proxy before it) and the
 * first address that is not itself a trusted proxy is the caller. A client can prepend anything to
 * the header, so nothing left of the first untrusted hop is believed.
 */
import { normalizeIpAddress, parseIpAddress } from './ip-address';
import { cidrContains, parseCidr, type CidrBlock } from './ip-rules';

/** Strips a port (`1.2.3.4:5678`, `[::1]:80`) and brackets that some proxies write. */
function hopAddress(hop: string): string {
  const text = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) return bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text);
  return v4WithPort ? v4WithPort[1] : text;
}

function isTrusted(address: string, trusted: readonly CidrBlock[]): boolean {
  const parsed = parseIpAddress(address);
  return parsed !== undefined && trusted.some((block) => cidrContains(block, parsed));
}

function compile(trustedProxies: readonly string[]): CidrBlock[] {
  return trustedProxies.map(parseCidr).filter((block): block is CidrBlock => block !== undefined);
}

function resolve(socketAddress: string | undefined, forwardedFor: string | undefined, trusted: readonly CidrBlock[]): string {
  const peer = normalizeIpAddress(socketAddress ?? '');
  if (peer === '') return 'unknown';
  if (!forwardedFor || trusted.length === 0 || !isTrusted(peer, trusted)) return peer;
  const hops = forwardedFor
    .split(',')
    .map(hopAddress)
    .filter((hop) => hop.length > 0);
  let candidate = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    // A garbage hop means the chain is not trustworthy from here on: keep the last proxy we believed.
    if (!parseIpAddress(hop)) return candidate;
    candidate = normalizeIpAddress(hop);
    if (!isTrusted(candidate, trusted)) return candidate;
  }
  // Every hop is a trusted proxy: the leftmost is the best we know.
  return candidate;
}

/** `trustedProxies` holds addresses or CIDR blocks (the `TRUSTED_PROXIES` setting). */
export function resolveClientIp(socketAddress: string | undefined, forwardedFor: string | undefined, trustedProxies: string[]): string {
  return resolve(socketAddress, forwardedFor, compile(trustedProxies));
}

/** The same resolution with the trusted list parsed once (hot path: one resolver per app). */
export function createClientIpResolver(
  trustedProxies: readonly string[],
): (socketAddress: string | undefined, forwardedFor: string | undefined) => string {
  const trusted = compile(trustedProxies);
  return (socketAddress, forwardedFor) => resolve(socketAddress, forwardedFor, trusted);
}
