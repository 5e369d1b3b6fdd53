/**
 * Issue 21 finding 1, the rule for every URL the gateway fetches: a media URL an upstream answered
 * with is fetched only from the upstream account's own origin or from public addresses, so a provider
 * answer cannot send the gateway to an internal host or the metadata address.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { downloadUpstreamBytes } from '../../../src/images/download-upstream-bytes';
import { OutboundRefusal } from '../../../src/net/outbound-fetch';
import { checkUpstreamMediaUrl } from '../../../src/net/upstream-media-url';
import { createUpstreamClient, type UpstreamClient } from '../../../src/upstream/upstream-client';

const BASE = 'http://127.0.0.1:7001/v1';

describe('upstream media URLs', () => {
  it('the upstream account\'s own origin is fetched, private or not', async () => {
    await expect(checkUpstreamMediaUrl('http://127.0.0.1:7001/v1/images/files/a.png', BASE)).resolves.toBeUndefined();
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:7002/other-port.png',
    'http://[::ffff:127.0.0.1]:7001/mapped.png',
    'http://10.0.0.5/internal.png',
    'http://[64:ff9b::a9fe:a9fe]/nat64-metadata',
    'file:///etc/passwd',
    'not a url',
  ])('%s is refused', async (url) => {
    await expect(checkUpstreamMediaUrl(url, BASE)).rejects.toBeInstanceOf(OutboundRefusal);
  });

  it('a public address is fetched', async () => {
    await expect(checkUpstreamMediaUrl('https://93.184.215.14/image.png', BASE)).resolves.toBeUndefined();
  });
});

describe('downloading an image an upstream answered by URL', () => {
  let internal: Server;
  let client: UpstreamClient;
  let hits = 0;
  beforeAll(async () => {
    internal = createServer((_req, res) => { hits += 1; res.end('internal secret'); });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', () => resolve()));
    client = createUpstreamClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => internal.close(resolve));
  });

  it('never connects to an internal host the upstream named; the upstream\'s own origin is read', async () => {
    const port = (internal.address() as AddressInfo).port;
    await expect(downloadUpstreamBytes(client, `http://127.0.0.1:${port}/x.png`, { upstreamBaseUrl: 'http://127.0.0.1:1/v1', maxBytes: 1_000 }))
      .rejects.toMatchObject({ kind: 'upstream_error' });
    expect(hits).toBe(0);
    const own = await downloadUpstreamBytes(client, `http://127.0.0.1:${port}/x.png`, { upstreamBaseUrl: `http://127.0.0.1:${port}/v1`, maxBytes: 1_000 });
    expect(own.toString()).toBe('internal secret');
    expect(hits).toBe(1);
  });
});
