/**
 * Image inlining through the outbound guard (issue 21 finding 1): a public-policy fetch that works
 * is inlined; every way of not getting an image reads the same, so the far side's status is never
 * told (no status oracle); a private address is refused unless configuration allows it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IrRequest } from '../../../src/ir/request';
import { inlineRemoteImages } from '../../../src/relay/inline-remote-images';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function requestWithImage(url: string): IrRequest {
  return {
    model: 'gemini-2.5-flash',
    system: [],
    tools: [],
    builtinTools: [],
    sampling: {},
    stream: false,
    turns: [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { kind: 'url', url } },
        ],
      },
    ],
  } as IrRequest;
}

describe('inlining remote images (issue 21 finding 1)', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      if (req.url === '/page') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      if (req.url === '/moved') return void res.writeHead(302, { location: '/ok.png' }).end();
      res.writeHead(Number(req.url?.slice(1)) || 404).end('secret internal page');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const lab = { allowPrivate: true, maxBytes: 1_000, timeoutMs: 5_000 };

  it('inlines an image, following a redirect', async () => {
    for (const path of ['/ok.png', '/moved']) {
      const request = requestWithImage(`${base}${path}`);
      expect(await inlineRemoteImages(request, lab)).toBe(1);
      expect(request.turns[0]!.parts[1]).toMatchObject({
        type: 'image',
        source: { kind: 'base64', mediaType: 'image/png', data: PNG.toString('base64') },
      });
    }
  });

  it('answers every failure with the same message: no status, no body of the far side', async () => {
    const messages = new Set<string>();
    for (const path of ['/404', '/500', '/401', '/page']) {
      const error = await inlineRemoteImages(requestWithImage(`${base}${path}`), lab).catch((thrown: Error) => thrown);
      expect(error).toMatchObject({ kind: 'invalid_request', status: 400 });
      expect((error as Error).message).not.toMatch(/404|500|401|secret|html/);
      messages.add((error as Error).message);
    }
    expect(messages.size).toBe(1);
  });

  it('refuses a loopback image URL under the default policy, before connecting', async () => {
    const error = await inlineRemoteImages(requestWithImage(`${base}/ok.png`), { ...lab, allowPrivate: false }).catch(
      (thrown: Error) => thrown,
    );
    expect(error).toMatchObject({ kind: 'invalid_request', message: expect.stringContaining('private') });
  });
});
