/**
 * Image URLs a target cannot take (Generate-Content needs the bytes) are downloaded by the gateway
 * and inlined as base64, with SSRF protection: http(s) only; no private, loopback, link-local or
 * unspecified addresses unless allowed by configuration; a size cap, a time limit and an image mime
 * allow-list. DNS is resolved once and the connection pinned to the checked address.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { GatewayError } from '../errors/gateway-error';
import type { ContentPart, ImagePart } from '../ir/parts';
import type { IrRequest } from '../ir/request';

const ALLOWED_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'application/pdf']);

export interface ImageFetchOptions { allowPrivate: boolean; maxBytes: number; timeoutMs: number }

export function isPrivateAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number);
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  const lower = address.toLowerCase();
  return lower === '::1' || lower === '::' || lower.startsWith('fe8') || lower.startsWith('fe9') || lower.startsWith('fea') ||
    lower.startsWith('feb') || lower.startsWith('fc') || lower.startsWith('fd') || lower.startsWith('ff');
}

async function download(url: string, options: ImageFetchOptions): Promise<{ mediaType: string; data: string }> {
  let parsed: URL;
  try { parsed = new URL(url); } catch { throw new GatewayError('invalid_request', `image URL is not a valid URL: ${url.slice(0, 100)}`); }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new GatewayError('invalid_request', 'image URLs must be http or https');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const address = isIP(host) ? host : (await lookup(host).catch(() => { throw new GatewayError('invalid_request', `image URL host ${host} does not resolve`); })).address;
  if (!options.allowPrivate && isPrivateAddress(address)) throw new GatewayError('invalid_request', 'image URL points to a private or loopback address');
  const agent = new Agent({ connect: { lookup: (_h, _o, callback) => callback(null, [{ address, family: isIP(address) }]) } });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const response = await agent.request({ origin: parsed.origin, path: parsed.pathname + parsed.search, method: 'GET', signal: controller.signal, maxRedirections: 0 } as Parameters<Agent['request']>[0]);
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new GatewayError('invalid_request', `image URL answered HTTP ${response.statusCode}`);
    }
    const mediaType = String(response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!ALLOWED_TYPES.has(mediaType)) {
      await response.body.dump();
      throw new GatewayError('invalid_request', `image URL content type ${mediaType || 'unknown'} is not an accepted image type`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > options.maxBytes) {
        controller.abort();
        throw new GatewayError('invalid_request', `image URL body exceeds ${options.maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return { mediaType, data: Buffer.concat(chunks).toString('base64') };
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('invalid_request', `image URL could not be fetched: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    void agent.close();
  }
}

function imageParts(request: IrRequest): ImagePart[] {
  const found: ImagePart[] = [];
  const visit = (parts: readonly ContentPart[]) => {
    for (const part of parts) {
      if (part.type === 'image' && part.source.kind === 'url' && /^https?:/i.test(part.source.url)) found.push(part);
      if (part.type === 'tool_result') visit(part.content);
    }
  };
  for (const turn of request.turns) visit(turn.parts);
  return found;
}

/** Replaces http(s) image sources by base64, in place. */
export async function inlineRemoteImages(request: IrRequest, options: ImageFetchOptions): Promise<number> {
  const parts = imageParts(request);
  await Promise.all(parts.map(async (part) => {
    const source = part.source;
    if (source.kind !== 'url') return;
    const downloaded = await download(source.url, options);
    part.source = { kind: 'base64', mediaType: downloaded.mediaType, data: downloaded.data };
  }));
  return parts.length;
}
