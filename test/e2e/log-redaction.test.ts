/**
 * Issue 2: a log line from a request that carried a key contains no part of the secret beyond its
 * last four characters — whatever header or query parameter carried it, success or failure.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { createApp } from '../../src/app';
import { bootstrap } from '../../src/process/bootstrap';
import { createLogger } from '../../src/http/logger';
import { createServices, type Services } from '../../src/services';
import { createTestDependencies, type TestDependencies } from '../support/dependencies';

describe('request logs never carry a secret', () => {
  const lines: string[] = [];
  let deps: TestDependencies;
  let services: Services;
  let sim: Simulator;
  let server: import('node:http').Server;
  let url: string;
  let key: string;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    deps = await createTestDependencies();
    deps.logger = createLogger(
      'debug',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    key = (await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' })).key!;
    services = createServices(deps);
    server = createApp(deps, services).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await services.close();
    await sim.close();
    await deps.close();
  });

  it('redacts keys in headers, query strings and bodies of successful and failed requests', async () => {
    const json = { 'content-type': 'application/json' };
    const wrong = `sk-svc-${'W'.repeat(40)}zzzz`;
    await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 16,
        messages: [{ role: 'user', content: `my key is ${key}` }],
        metadata: { user_id: 'u1' },
      }),
    });
    await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await fetch(`${url}/v1beta/models/gemini-2.5-flash:generateContent?key=${key}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${wrong}` },
      body: '{"model":"gpt-4.1"}',
    });
    await fetch(`${url}/v1/models?key=${key}`, { headers: { 'x-api-key': key } });
    await fetch(`${url}/api/v1/keys`, { headers: { 'x-api-key': key } });
    await fetch(`${url}/v1/nowhere?key=${key}`, { headers: { 'x-goog-api-key': key } });
    await new Promise((resolve) => setTimeout(resolve, 200));

    const output = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    expect(output).toContain('requestId');
    for (const secret of [key, wrong]) {
      // Nothing of the secret beyond its last four characters, in any fragment of 8 characters or more.
      const body = secret.slice('sk-svc-'.length, -4);
      for (let i = 0; i + 8 <= body.length; i++) expect(output).not.toContain(body.slice(i, i + 8));
    }
  });
});
