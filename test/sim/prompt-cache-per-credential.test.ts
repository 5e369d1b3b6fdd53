import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';

describe('simulator prompt caches are per credential, as providers keep them per account', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
  });
  afterAll(async () => {
    await sim.close();
  });

  async function cached(apiKey: string): Promise<{ status: number; read?: number }> {
    const response = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 8,
        system: [{ type: 'text', text: 'a long and stable system prompt', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    const body = (await response.json()) as { usage?: { cache_read_input_tokens?: number } };
    return { status: response.status, read: body.usage?.cache_read_input_tokens };
  }

  it('reads a prefix only under the credential that wrote it; `<key>.<name>` is another account', async () => {
    expect(await cached('sim-key.a')).toEqual({ status: 200, read: 0 });
    expect((await cached('sim-key.a')).read).toBeGreaterThan(0);
    expect(await cached('sim-key.b')).toEqual({ status: 200, read: 0 });
    expect(await cached('sim-key')).toEqual({ status: 200, read: 0 });
    expect((await cached('sim-key.')).status).toBe(401);
    expect((await cached('other-key.a')).status).toBe(401);
  });
});
