/**
 * Bytes an upstream answered by URL (an image), read whole with a size cap; the URL must be the
 * upstream's own or public, and a public one is fetched from the address that was checked.
 */
import { GatewayError } from '../errors/gateway-error';
import { checkUpstreamMediaUrl } from '../net/upstream-media-url';
import type { UpstreamClient } from '../upstream/upstream-client';
import { readUpstreamText, toUpstreamError } from '../upstream/upstream-client';

export async function downloadUpstreamBytes(
  client: UpstreamClient,
  url: string,
  options: { upstreamBaseUrl: string; maxBytes: number; headers?: Record<string, string>; signal?: AbortSignal },
): Promise<Buffer> {
  const connectTo = await checkUpstreamMediaUrl(url, options.upstreamBaseUrl).catch((error: Error) => {
    throw new GatewayError('upstream_error', `the upstream's media URL was not fetched: ${error.message}`);
  });
  const response = await client.call({ url, method: 'GET', headers: options.headers ?? {}, signal: options.signal, connectTo });
  if (response.status < 200 || response.status >= 300) {
    const text = await readUpstreamText(response).catch(() => '');
    throw new GatewayError('upstream_error', `downloading the upstream media failed (HTTP ${response.status})`, {
      upstream: { status: response.status, body: text.slice(0, 500) },
    });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buffer.length;
      if (total > options.maxBytes) {
        response.body.destroy();
        throw new GatewayError('upstream_error', `upstream media is larger than ${options.maxBytes} bytes`);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    throw toUpstreamError(error);
  }
  return Buffer.concat(chunks);
}
