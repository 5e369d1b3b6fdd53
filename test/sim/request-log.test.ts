/** The request log: what the gateway sent upstream, readable in-process and over HTTP. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { ANTHROPIC_HEADERS, get, OPENAI_HEADERS, post } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ logLimit: 5 });
});
afterAll(async () => sim.close());
beforeEach(() => sim.clearRequests());

it('records method, path with query, lower-case headers, parsed body, protocol, model, stream and outcome', async () => {
  await post(
    sim,
    '/v1/messages?beta=true',
    { model: 'claude-haiku-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] },
    { ...ANTHROPIC_HEADERS, 'X-Custom': 'Yes' },
  );
  expect(sim.requests).toHaveLength(1);
  const entry = sim.requests[0]!;
  expect(entry).toMatchObject({
    id: expect.any(Number),
    method: 'POST',
    path: '/v1/messages?beta=true',
    protocol: 'messages',
    model: 'claude-haiku-4-5',
    stream: true,
    status: 200,
    completed: true,
    aborted: false,
    fault: null,
    body: { model: 'claude-haiku-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(entry.headers['x-custom']).toBe('Yes');
  expect(entry.startedAt).toBeLessThanOrEqual(Date.now());
});

it('records rejected requests with their status', async () => {
  await post(sim, '/v1/chat/completions', { model: 'nope', messages: [{ role: 'user', content: 'hi' }] }, OPENAI_HEADERS);
  expect(sim.requests[0]).toMatchObject({ protocol: 'chat', model: 'nope', status: 404, completed: true });
});

it('serves the log over HTTP and clears it with DELETE', async () => {
  await post(sim, '/v1/responses', { model: 'gpt-5', input: 'hi' }, OPENAI_HEADERS);
  const log = await get(sim, '/_sim/requests');
  expect(log.json).toEqual([expect.objectContaining({ path: '/v1/responses', protocol: 'responses' })]);
  const reference = sim.requests;
  const cleared = await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
  expect(cleared.status).toBe(204);
  expect(reference).toHaveLength(0);
  expect((await get(sim, '/_sim/requests')).json).toEqual([]);
});

it('keeps a bounded number of entries, newest last', async () => {
  for (let index = 0; index < 12; index++) await post(sim, '/v1/responses', { model: 'gpt-5', input: `n${index}` }, OPENAI_HEADERS);
  expect(sim.requests.length).toBeLessThanOrEqual(10);
  expect(sim.requests.length).toBeGreaterThanOrEqual(5);
  expect(sim.requests[sim.requests.length - 1]!.body).toMatchObject({ input: 'n11' });
});
