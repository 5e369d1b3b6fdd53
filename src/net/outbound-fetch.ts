/**
 * The one way the gateway checks a URL a caller, an operator or an upstream's answer gave it (image
 * URLs, webhooks, upstream media URLs): http(s) only; the host resolved once, every address it
 * resolves to checked by the address policy, and the connection pinned to the checked address
 * (pinned-agent.ts: no DNS-rebinding window). `fetchOutbound` is the fetch for a whole capped body:
 * redirects followed by hand, each hop checked the same way before it is connected to; one time
 * limit over all hops and a body size cap. Refusals are `OutboundRefusal`s whose message never
 * carries what an internal host answered (no status oracle).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy';
import { createPinnedAgent } from './pinned-agent';

export type OutboundRefusalReason =
  'invalid_url' | 'scheme' | 'unresolvable' | 'forbidden_address' | 'too_many_redirects' | 'too_large' | 'failed';

export class OutboundRefusal extends Error {
  constructor(
    readonly reason: OutboundRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefusal';
  }
}

export interface OutboundPolicy {
  allowAddress: AddressPolicy;
  timeoutMs: number;
  maxBytes: number;
  /** Redirects followed (GET and HEAD only); 0 returns a 3xx as it is. */
  maxRedirects: number;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

export interface OutboundTarget {
  url: URL;
  /** The checked address the connection goes to. */
  address: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Parses and checks a URL, resolving its host: every address it resolves to must be allowed. */
export async function resolveOutboundTarget(rawUrl: string, allowAddress: AddressPolicy): Promise<OutboundTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new OutboundRefusal('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusal('scheme', 'only http and https URLs are fetched');
  if (url.username !== '' || url.password !== '') throw new OutboundRefusal('invalid_url', 'URLs with credentials are not fetched');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    const found = await lookup(host, { all: true, verbatim: true }).catch(() => []);
    if (found.length === 0) throw new OutboundRefusal('unresolvable', `host ${host.slice(0, 100)} does not resolve`);
    addresses = found.map((entry) => entry.address);
  }
  for (const address of addresses) {
    if (!allowAddress(address).allowed)
      throw new OutboundRefusal('forbidden_address', 'the URL points to a private, loopback, link-local or reserved address');
  }
  return { url, address: addresses[0] };
}

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>, maxBytes: number, abort: () => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      abort();
      throw new OutboundRefusal('too_large', `the answer exceeds ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

async function requestPinned(
  target: OutboundTarget,
  request: OutboundRequest,
  policy: OutboundPolicy,
  controller: AbortController,
): Promise<OutboundResponse> {
  const { url } = target;
  const agent = createPinnedAgent(target.address);
  try {
    const response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: (request.method ?? 'GET') as 'GET',
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const body = await readCapped(response.body, policy.maxBytes, () => controller.abort());
    return { status: response.statusCode, headers: response.headers, body, url: url.href };
  } finally {
    void agent.close();
  }
}

/** Fetches `rawUrl` under `policy`; throws `OutboundRefusal` for every failure, never another error. */
export async function fetchOutbound(rawUrl: string, request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), policy.timeoutMs);
  const method = (request.method ?? 'GET').toUpperCase();
  try {
    let next = rawUrl;
    for (let hop = 0; ; hop++) {
      const target = await resolveOutboundTarget(next, policy.allowAddress);
      const response = await requestPinned(target, request, policy, controller);
      const location = response.headers.location;
      if (
        !REDIRECTS.has(response.status) ||
        typeof location !== 'string' ||
        policy.maxRedirects === 0 ||
        (method !== 'GET' && method !== 'HEAD')
      )
        return response;
      if (hop >= policy.maxRedirects) throw new OutboundRefusal('too_many_redirects', `more than ${policy.maxRedirects} redirects`);
      next = new URL(location, target.url).href;
    }
  } catch (error) {
    if (error instanceof OutboundRefusal) throw error;
    // The cause (connection refused, reset, timeout) is not passed on: it would describe the far side.
    throw new OutboundRefusal('failed', controller.signal.aborted ? 'the request timed out' : 'the request failed');
  } finally {
    clearTimeout(timer);
  }
}
