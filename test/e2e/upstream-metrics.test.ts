/**
 * Prometheus figures per upstream account (issue 22 item 4): time to first token of streams, each
 * attempt's latency by outcome, and failures by bounded reason, labelled with the configured
 * upstream account id and the catalog's model id, never with a name the client made up.
 */
import { insertApiKey } from '../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { startTestGateway, type TestGateway } from '../support/gateway';

describe('per-upstream Prometheus metrics', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  }, 60_000);

  afterAll(async () => {
    await gateway.close();
  });

  const metrics = async () => (await fetch(`${gateway.url}/metrics`)).text();
  const sample = (text: string, name: string, labels: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };
  const chat = async (secret: string, model: string, stream: boolean) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
    return response.status;
  };

  it('records TTFT, attempt latency and errors per upstream account with bounded labels', async () => {
    const groupId = Number(await createGroup(gateway.deps.db, { name: 'metrics', family: null }));
    const failing = Number(
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: 'failing',
        protocol: 'chat',
        baseUrl: `${gateway.sim.url}/_fault/503`,
        apiKey: 'sim-key',
        models: ['gpt-4.1'],
        priority: 0,
        weight: 1,
      }),
    );
    const healthy = Number(
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: 'healthy',
        protocol: 'chat',
        baseUrl: gateway.sim.url,
        apiKey: 'sim-key',
        models: ['gpt-4.1'],
        priority: 1,
        weight: 1,
      }),
    );
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'metrics' });
    gateway.services.upstreams.invalidate();

    expect(await chat(key.secret, 'gpt-4.1', true)).toBe(200); // fails over from the failing account, streams from the healthy one
    expect(await chat(key.secret, 'no-such-model-from-a-client', true)).toBe(400);

    const text = await metrics();
    expect(sample(text, 'gateway_time_to_first_token_seconds_count', `protocol="chat",model="gpt-4.1",upstream_account="${healthy}"`)).toBe(
      1,
    );
    expect(
      sample(text, 'gateway_upstream_attempt_duration_seconds_count', `upstream_account="${failing}",protocol="chat",outcome="error"`),
    ).toBe(1);
    expect(
      sample(text, 'gateway_upstream_attempt_duration_seconds_count', `upstream_account="${healthy}",protocol="chat",outcome="ok"`),
    ).toBe(1);
    expect(sample(text, 'gateway_upstream_account_errors_total', `upstream_account="${failing}",reason="5xx"`)).toBe(1);
    expect(sample(text, 'gateway_upstream_account_errors_total', `upstream_account="${healthy}",reason="5xx"`)).toBeUndefined();
    expect(text).not.toContain('no-such-model-from-a-client');
  });
});
