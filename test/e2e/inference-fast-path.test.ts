/**
 * The inference routes are served on node's request and response, ahead of express (DESIGN 10).
 * These pin what express used to give them: its path matching (case-insensitive, one trailing
 * slash), body-parser's treatment of unusual bodies (compressed, other charsets, a BOM, chunked,
 * empty), the request id headers, the access metrics, and the app used as a plain handler.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { createApp } from '../../src/app';

jest.setTimeout(60_000);

const CHAT_BODY = { model: 'gpt-4.1', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw HTTP request, so headers such as transfer-encoding and content-encoding are exactly as given. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; chunks?: Array<Buffer | string> },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on('error', reject);
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end();
  });
}

describe('inference fast path', () => {
  let gateway: TestGateway;
  let auth: Record<string, string>;
  beforeAll(async () => {
    gateway = await startTestGateway();
    auth = { authorization: `Bearer ${gateway.key}` };
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('matches the routes as express did: case-insensitive, one trailing slash, the query parsed', async () => {
    const body = JSON.stringify(CHAT_BODY);
    const json = { ...auth, 'content-type': 'application/json' };
    for (const path of ['/v1/chat/completions', '/v1/chat/completions/', '/V1/Chat/Completions']) {
      const answer = await send(`${gateway.url}${path}`, { headers: json, chunks: [body] });
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      expect(JSON.parse(answer.text).object).toBe('chat.completion');
    }
    const twoSlashes = await send(`${gateway.url}/v1/chat/completions//`, { headers: json, chunks: [body] });
    expect(twoSlashes.status).toBe(404);
    const generate = await send(`${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${gateway.key}`, {
      headers: { 'content-type': 'application/json' },
      chunks: [JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] })],
    });
    expect(generate.status).toBe(200);
    expect(JSON.parse(generate.text).candidates).toHaveLength(1);
  });

  it('leaves other methods and paths to express', async () => {
    const get = await send(`${gateway.url}/v1/chat/completions`, { method: 'GET', headers: auth });
    expect(get.status).toBe(404);
    expect(JSON.parse(get.text).error.message).toMatch(/no route for GET/);
    const models = await send(`${gateway.url}/v1/models`, { method: 'GET', headers: auth });
    expect(models.status).toBe(200);
  });

  it('gives every answer its request id headers, errors included', async () => {
    const ok = await send(`${gateway.url}/v1/chat/completions`, {
      headers: { ...auth, 'content-type': 'application/json' },
      chunks: [JSON.stringify(CHAT_BODY)],
    });
    expect(ok.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(ok.headers['request-id']).toBe(ok.headers['x-request-id']);
    expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
    const refused = await send(`${gateway.url}/v1/chat/completions`, {
      headers: { 'content-type': 'application/json' },
      chunks: [JSON.stringify(CHAT_BODY)],
    });
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(JSON.parse(refused.text).error.type).toBe('authentication_error');
  });

  it('reads bodies as body-parser did: gzip, chunked, a BOM, empty, other charsets', async () => {
    const url = `${gateway.url}/v1/chat/completions`;
    const gzipped = await send(url, {
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      chunks: [gzipSync(JSON.stringify(CHAT_BODY))],
    });
    expect(gzipped.status).toBe(200);
    const text = JSON.stringify(CHAT_BODY);
    const chunked = await send(url, {
      headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: [text.slice(0, 10), text.slice(10)],
    });
    expect(chunked.status).toBe(200);
    const bom = await send(url, { headers: { ...auth, 'content-type': 'application/json' }, chunks: [`\uFEFF${text}`] });
    expect(bom.status).toBe(200);
    // An empty body reads as {} (body-parser's rule), which then fails validation in the protocol's envelope.
    const empty = await send(url, { headers: { ...auth, 'content-type': 'application/json', 'content-length': '0' } });
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.text).error.type).toBe('invalid_request_error');
    const latin1 = await send(url, { headers: { ...auth, 'content-type': 'application/json; charset=latin1' }, chunks: [text] });
    expect(latin1.status).toBe(400);
    expect(JSON.parse(latin1.text).error.message).toMatch(/encoding/);
    const messages = await send(`${gateway.url}/v1/messages`, {
      headers: { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      chunks: ['{"model": '],
    });
    expect(messages.status).toBe(400);
    expect(JSON.parse(messages.text)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'request body is not valid JSON' },
    });
  });

  it('refuses a chunked body over the cap with 413 in the protocol envelope', async () => {
    const small = await startTestGateway({ env: { MAX_BODY_BYTES: '1000' } });
    try {
      const big = JSON.stringify({ ...CHAT_BODY, messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
      const answer = await send(`${small.url}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${small.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: [big.slice(0, 800), big.slice(800)],
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text).error.code).toBe('request_too_large');
    } finally {
      await small.close();
    }
  });

  it('counts inference requests in the metrics under the protocol route label', async () => {
    await send(`${gateway.url}/v1/chat/completions`, {
      headers: { ...auth, 'content-type': 'application/json' },
      chunks: [JSON.stringify(CHAT_BODY)],
    });
    const metrics = await gateway.deps.metrics.registry.getSingleMetricAsString('gateway_http_requests_total');
    expect(metrics).toMatch(/gateway_http_requests_total\{route="chat",method="POST",status="200"\} [1-9]/);
  });

  it('serves inference when the app is used as a plain request handler too', async () => {
    const app = createApp(gateway.deps, gateway.services);
    const server: Server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
      const answer = await send(url, { headers: { ...auth, 'content-type': 'application/json' }, chunks: [JSON.stringify(CHAT_BODY)] });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.closeRoutes();
    }
  });
});
