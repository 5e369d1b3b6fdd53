/**
 * Issue 21 finding 1 in the fuzz suite: generated spellings of internal addresses (every IPv4 form
 * the URL parser accepts and every IPv6 form that embeds IPv4) are refused by the outbound guard,
 * and, as image URLs in chat requests through the whole gateway, answer 400 and are never fetched.
 * Seeded like the main fuzz suite (FUZZ_SEED, FUZZ_RUNS).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { classifyAddress } from '../../src/net/address-policy';
import { resolveOutboundTarget } from '../../src/net/outbound-fetch';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { internalHost } from './arbitraries';
import { answerProblem } from './envelopes';
import { probe } from './http-probe';

jest.setTimeout(120_000);

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

describe('fuzz: SSRF address forms (issue 21 finding 1)', () => {
  let gateway: TestGateway;
  let sentinel: Server;
  let port = 0;
  let hits = 0;

  beforeAll(async () => {
    sentinel = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/png' }).end('png');
    });
    await new Promise<void>((resolve) => sentinel.listen(0, '127.0.0.1', resolve));
    port = (sentinel.address() as AddressInfo).port;
    gateway = await startTestGateway({ env: { IMAGE_FETCH_ALLOW_PRIVATE: 'false' } });
  });
  afterAll(async () => {
    await gateway?.close();
    await new Promise((resolve) => sentinel.close(resolve));
  });

  it('the guard refuses every spelling before connecting', async () => {
    await fc.assert(
      fc.asyncProperty(internalHost, async (host) => {
        const url = `http://${host}:${port}/x.png`;
        const parsedHost = new URL(url).hostname.replace(/^\[|\]$/g, '');
        if (parsedHost !== 'localhost') expect(classifyAddress(parsedHost).allowed).toBe(false);
        await expect(resolveOutboundTarget(url, classifyAddress)).rejects.toMatchObject({ reason: 'forbidden_address' });
      }),
      { seed: SEED, numRuns: runs(500) },
    );
    expect(hits).toBe(0);
  });

  it('through the gateway: a 400 in the Chat envelope, never a fetch', async () => {
    await fc.assert(
      fc.asyncProperty(internalHost, fc.constantFrom('http', 'https'), async (host, scheme) => {
        const answer = await probe(gateway.url, {
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gemini-2.5-flash',
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'look' },
                  { type: 'image_url', image_url: { url: `${scheme}://${host}:${port}/x.png` } },
                ],
              },
            ],
          }),
        });
        expect(answer.status).toBe(400);
        expect(answerProblem('chat', answer)).toBeUndefined();
      }),
      { seed: SEED, numRuns: runs(120) },
    );
    expect(hits).toBe(0);
  });
});
