/**
 * Issue 21 finding 1, the rule for every URL the gateway fetches: a media URL an upstream answered
 * with is fetched only from the upstream account's own origin or from public addresses, so a provider
 * answer cannot send the gateway to an internal host or the metadata address, and the connection goes
 * to the address that was checked (no DNS rebinding).
 */
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { downloadUpstreamBytes } from '../../../src/images/download-upstream-bytes';
import { OutboundRefusal } from '../../../src/net/outbound-fetch';
import { checkUpstreamMediaUrl } from '../../../src/net/upstream-media-url';
import { createVideoOperations } from '../../../src/tasks/video-operations';
import type { UpstreamAccount } from '../../../src/upstream/upstream-account';
import { createUpstreamClient, type UpstreamClient } from '../../../src/upstream/upstream-client';

const BASE = 'http://127.0.0.1:7001/v1';

describe('upstream media URLs', () => {
  it("the upstream account's own origin is fetched, private or not, as every call to the upstream", async () => {
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

  it('a public address is fetched, from the address that was checked', async () => {
    await expect(checkUpstreamMediaUrl('https://93.184.215.14/image.png', BASE)).resolves.toBe('93.184.215.14');
  });
});

describe('downloading an image an upstream answered by URL', () => {
  let internal: Server;
  let client: UpstreamClient;
  let hits = 0;
  beforeAll(async () => {
    internal = createServer((_req, res) => {
      hits += 1;
      res.end('internal secret');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', () => resolve()));
    client = createUpstreamClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => internal.close(resolve));
  });

  it("never connects to an internal host the upstream named; the upstream's own origin is read", async () => {
    const port = (internal.address() as AddressInfo).port;
    await expect(
      downloadUpstreamBytes(client, `http://127.0.0.1:${port}/x.png`, { upstreamBaseUrl: 'http://127.0.0.1:1/v1', maxBytes: 1_000 }),
    ).rejects.toMatchObject({ kind: 'upstream_error' });
    expect(hits).toBe(0);
    const own = await downloadUpstreamBytes(client, `http://127.0.0.1:${port}/x.png`, {
      upstreamBaseUrl: `http://127.0.0.1:${port}/v1`,
      maxBytes: 1_000,
    });
    expect(own.toString()).toBe('internal secret');
    expect(hits).toBe(1);
  });
});

/**
 * DNS rebinding: the host answers a public address when the URL is checked and the loopback address
 * when it is looked up again to connect. The connection must go to the address that was checked
 * (a public one, unreachable from here: the download fails), never to a second answer.
 */
describe('upstream media URLs: no DNS-rebinding window between the check and the connection', () => {
  const REBINDING_HOST = 'media.rebinding.test';
  const CHECKED_ADDRESS = '93.184.215.14';
  let internal: Server;
  let port: number;
  let client: UpstreamClient;
  let hits = 0;
  let connectLookups = 0;

  beforeAll(async () => {
    internal = createServer((_req, res) => {
      hits += 1;
      res.end('internal secret');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', () => resolve()));
    port = (internal.address() as AddressInfo).port;
    // A short connect timeout: the checked (public) address is not reachable from a test machine.
    client = createUpstreamClient({ connectTimeoutMs: 500, firstByteTimeoutMs: 2_000, idleTimeoutMs: 2_000 });
  });
  beforeEach(() => {
    hits = 0;
    connectLookups = 0;
    const realCheckLookup = dnsPromises.lookup.bind(dnsPromises);
    jest
      .spyOn(dnsPromises, 'lookup')
      .mockImplementation(((host: string, options: object) =>
        host === REBINDING_HOST
          ? Promise.resolve([{ address: CHECKED_ADDRESS, family: 4 }])
          : realCheckLookup(host, options as dns.LookupAllOptions)) as typeof dnsPromises.lookup);
    const realConnectLookup = dns.lookup.bind(dns);
    jest.spyOn(dns, 'lookup').mockImplementation(((host: string, options: unknown, callback: unknown) => {
      if (host !== REBINDING_HOST) return (realConnectLookup as (...args: unknown[]) => void)(host, options, callback);
      connectLookups += 1;
      const done = (typeof options === 'function' ? options : callback) as (error: null, address: unknown, family?: number) => void;
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
      if (all) done(null, [{ address: '127.0.0.1', family: 4 }]);
      else done(null, '127.0.0.1', 4);
    }) as typeof dns.lookup);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => internal.close(resolve));
  });

  const account: UpstreamAccount = {
    id: 1,
    groupId: 1,
    name: 'veo',
    protocol: 'generate-content',
    baseUrl: 'http://127.0.0.1:1',
    credential: 'upstream-secret',
    models: ['*'],
    priority: 0,
    weight: 1,
  };
  it.each([
    [
      'an image answered by URL',
      () => downloadUpstreamBytes(client, `http://${REBINDING_HOST}:${port}/x.png`, { upstreamBaseUrl: account.baseUrl, maxBytes: 1_000 }),
    ],
    [
      'a finished video',
      () =>
        createVideoOperations(client, { pollTimeoutMs: 2_000 }).open(account, {
          uri: `http://${REBINDING_HOST}:${port}/v.mp4`,
          mimeType: 'video/mp4',
        }),
    ],
  ])('%s is fetched from the checked address, not from a second DNS answer', async (_name, download) => {
    await expect(download()).rejects.toMatchObject({ kind: expect.stringMatching(/^(upstream_error|timeout)$/) });
    expect(hits).toBe(0);
    expect(connectLookups).toBe(0);
  });
});
