/**
 * Image URLs a target cannot take (Generate-Content needs the bytes) are downloaded by the gateway
 * and inlined as base64 through the outbound guard (src/net): public addresses only unless allowed
 * by configuration, every redirect hop checked, a size cap, a time limit and an image mime
 * allow-list. What the far side answered is never told to the caller: every failure to get an
 * image reads the same (no status oracle on internal hosts).
 */
import { GatewayError } from '../errors/gateway-error';
import type { ContentPart, ImagePart } from '../ir/parts';
import type { IrRequest } from '../ir/request';
import { addressPolicy } from '../net/address-policy';
import { fetchOutbound, OutboundRefusal, type OutboundPolicy } from '../net/outbound-fetch';

const ALLOWED_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'application/pdf']);
const MAX_REDIRECTS = 3;
const NOT_FETCHED = 'image URL could not be fetched as an image (it must be a public http(s) URL answering 200 with an image type)';

export interface ImageFetchOptions {
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
}

function refusalMessage(refusal: OutboundRefusal): string {
  switch (refusal.reason) {
    case 'invalid_url':
    case 'scheme':
    case 'forbidden_address':
    case 'too_large':
      return `image URL refused: ${refusal.message}`;
    default:
      return NOT_FETCHED;
  }
}

async function download(url: string, policy: OutboundPolicy): Promise<{ mediaType: string; data: string }> {
  let response;
  try {
    response = await fetchOutbound(url, { method: 'GET' }, policy);
  } catch (error) {
    if (error instanceof OutboundRefusal) throw new GatewayError('invalid_request', refusalMessage(error));
    throw error;
  }
  const mediaType = String(response.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (response.status !== 200 || !ALLOWED_TYPES.has(mediaType)) throw new GatewayError('invalid_request', NOT_FETCHED);
  return { mediaType, data: response.body.toString('base64') };
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
  const policy: OutboundPolicy = {
    allowAddress: addressPolicy(options),
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: MAX_REDIRECTS,
  };
  await Promise.all(
    parts.map(async (part) => {
      const source = part.source;
      if (source.kind !== 'url') return;
      const downloaded = await download(source.url, policy);
      part.source = { kind: 'base64', mediaType: downloaded.mediaType, data: downloaded.data };
    }),
  );
  return parts.length;
}
