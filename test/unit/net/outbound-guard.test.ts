/**
 * Issue 21 finding 1 (SSRF): the outbound guard's address classification covers every IPv6 form
 * that embeds IPv4, and a redirect hop to a refused address is never connected to, over real sockets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyAddress, type AddressPolicy } from '../../../src/net/address-policy';
import { fetchOutbound, OutboundRefusal, resolveOutboundTarget, type OutboundPolicy } from '../../../src/net/outbound-fetch';

describe('issue 21 finding 1: SSRF address classification', () => {
  it.each([
    ['IPv4-mapped, hex form the URL parser writes', '::ffff:7f00:1'],
    ['IPv4-mapped, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped metadata address', '::ffff:a9fe:a9fe'],
    ['IPv4-compatible', '::7f00:1'],
    ['IPv4-compatible private', '::a00:1'],
    ['SIIT (rfc6145)', '::ffff:0:7f00:1'],
    ['NAT64 64:ff9b::/96 to loopback', '64:ff9b::7f00:1'],
    ['NAT64 to the metadata address', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
    ['6to4 of loopback', '2002:7f00:1::1'],
    ['6to4 of 10/8', '2002:a00:1::'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique-local', 'fd12:3456::1'],
    ['IPv6 site-local (deprecated)', 'fec0::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv6 documentation', '2001:db8::1'],
    ['cloud metadata', '169.254.169.254'],
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 this-network', '0.0.0.0'],
    ['10/8', '10.1.2.3'],
    ['172.16/12', '172.31.255.255'],
    ['192.168/16', '192.168.0.1'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['benchmarking', '198.18.0.1'],
    ['documentation', '203.0.113.9'],
    ['multicast', '239.1.1.1'],
    ['reserved 240/4', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
  ])('refuses %s (%s)', (_name, address) => {
    expect(classifyAddress(address).allowed).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    'allows the public address %s',
    (address) => {
      expect(classifyAddress(address)).toEqual({ allowed: true });
    },
  );

  it.each([
    'http://[::ffff:127.0.0.1]/x.png',
    'http://[::ffff:7f00:1]/x.png',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'http://[2002:7f00:1::]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://localhost/',
  ])('refuses the URL %s before connecting', async (url) => {
    await expect(resolveOutboundTarget(url, classifyAddress)).rejects.toMatchObject({ reason: 'forbidden_address' });
  });
});

describe('issue 21 finding 1: every redirect hop is checked before connecting', () => {
  let internal: Server;
  let redirector: Server;
  let internalHits = 0;
  let internalUrl = '';
  let redirectorUrl = '';
  // The redirector stands for a public host (127.0.0.2); the internal host (127.0.0.3) is refused.
  const onlyRedirector: AddressPolicy = (address) =>
    address === '127.0.0.2' ? { allowed: true } : { allowed: false, range: 'test internal' };
  const policy: OutboundPolicy = { allowAddress: onlyRedirector, timeoutMs: 5_000, maxBytes: 1_000, maxRedirects: 3 };

  async function listen(server: Server, host: string): Promise<string> {
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return `http://${host}:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    internal = createServer((_req, res) => {
      internalHits++;
      res.writeHead(418).end('internal secret');
    });
    internalUrl = await listen(internal, '127.0.0.3');
    redirector = createServer((req, res) => {
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
      if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(5_000));
      res.writeHead(302, { location: `${internalUrl}/admin` }).end();
    });
    redirectorUrl = await listen(redirector, '127.0.0.2');
  });
  afterAll(async () => {
    await new Promise((resolve) => internal.close(resolve));
    await new Promise((resolve) => redirector.close(resolve));
  });

  it('refuses a redirect to an internal host without connecting to it, and without its status', async () => {
    const refusal = await fetchOutbound(`${redirectorUrl}/go`, {}, policy).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OutboundRefusal);
    expect(refusal).toMatchObject({ reason: 'forbidden_address' });
    expect((refusal as Error).message).not.toMatch(/418|302/);
    expect(internalHits).toBe(0);
  });

  it('follows an allowed hop, bounds redirect loops and caps the body', async () => {
    expect((await fetchOutbound(`${redirectorUrl}/ok`, {}, policy)).body.toString()).toBe('fine');
    await expect(fetchOutbound(`${redirectorUrl}/loop`, {}, policy)).rejects.toMatchObject({ reason: 'too_many_redirects' });
    await expect(fetchOutbound(`${redirectorUrl}/big`, {}, policy)).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('does not follow redirects of a POST (webhooks get the 3xx as it is)', async () => {
    const answer = await fetchOutbound(`${redirectorUrl}/go`, { method: 'POST', body: '{}' }, policy);
    expect(answer.status).toBe(302);
    expect(internalHits).toBe(0);
  });
});
