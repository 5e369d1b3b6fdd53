/**
 * Issue 24, "where each microsecond goes": with GATEWAY_TRACE_SAMPLE=1 every inference request
 * through the real app and the simulator leaves a trace with every phase, in the order it happened,
 * read at GET /internal/trace; with tracing off that endpoint does not exist.
 */
import { startTestGateway, type TestGateway } from '../support/gateway';
import type { TraceSummary } from '../../src/http/request-trace';

jest.setTimeout(60_000);

const COMPLETE = [
  'read',
  'authenticated',
  'decoded',
  'admitted',
  'routed',
  'prepared',
  'upstream',
  'received',
  'translated',
  'settled',
  'written',
  'logged',
];
const STREAM = [
  'read',
  'authenticated',
  'decoded',
  'admitted',
  'routed',
  'prepared',
  'upstream',
  'translated',
  'written',
  'logged',
  'settled',
];

async function summary(gateway: TestGateway, traces: number): Promise<TraceSummary> {
  // A stream settles after its last byte: wait for the handler to end (never on a timing assertion).
  for (;;) {
    const read = (await (await fetch(`${gateway.url}/internal/trace`)).json()) as TraceSummary;
    if (read.traces >= traces) return read;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('request trace through the app', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { GATEWAY_TRACE_SAMPLE: '1' } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const chat = (stream: boolean) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 32, stream, messages: [{ role: 'user', content: 'Hello' }] }),
    });
  const messages = (stream: boolean) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 32, stream, messages: [{ role: 'user', content: 'Hello' }] }),
    });

  it('traces a whole answer, pass-through and translated, with every phase in order', async () => {
    await fetch(`${gateway.url}/internal/trace`, { method: 'DELETE' });
    for (const call of [chat(false), messages(false)]) {
      const answer = await call;
      expect(answer.status).toBe(200);
      await answer.text();
    }
    const read = await summary(gateway, 2);
    expect(read.sequences).toEqual([expect.objectContaining({ phases: COMPLETE, count: 2 })]);
    for (const phase of read.sequences[0].breakdown) {
      expect(phase.wallMicrosMean).toBeGreaterThanOrEqual(0);
      expect(phase.cpuMicrosMean).toBeGreaterThanOrEqual(0);
    }
    expect(read.last?.map((p) => p.phase)).toEqual(COMPLETE);
  });

  it('traces a stream: first frame translated, last byte written, settled after it', async () => {
    await fetch(`${gateway.url}/internal/trace`, { method: 'DELETE' });
    for (const call of [chat(true), messages(true)]) {
      const answer = await call;
      expect(answer.status).toBe(200);
      await answer.text();
    }
    const read = await summary(gateway, 2);
    // The close of the response and the settle round trip race: either may come first.
    const orders = read.sequences.map((s) => s.phases.join(' '));
    for (const order of orders) expect([STREAM.join(' '), [...STREAM.slice(0, -2), 'settled', 'logged'].join(' ')]).toContain(order);
    expect(read.sequences.reduce((n, s) => n + s.count, 0)).toBe(2);
  });

  it('marks a refused request as failed, and is not served with tracing off', async () => {
    await fetch(`${gateway.url}/internal/trace`, { method: 'DELETE' });
    const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    const read = await summary(gateway, 1);
    expect(read.sequences[0].phases).toEqual(['read', 'failed', 'logged']);
    const off = await startTestGateway();
    try {
      expect((await fetch(`${off.url}/internal/trace`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
