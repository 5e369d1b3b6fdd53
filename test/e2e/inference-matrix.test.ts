/**
 * Issue 5 acceptance: for every model family and every protocol the catalog allows for it, a text
 * call, a streamed call and a two-request tool round trip, each parsed by the official SDK, with the
 * expected content, stop reason and usage. Gateway + simulator + real PostgreSQL and Redis.
 */
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import type { Protocol } from '../../src/ir/protocol';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { sdkClient, STOPS } from '../support/sdk-clients';

jest.setTimeout(60_000);

const cases: Array<[string, number, Protocol]> = DEFAULT_CATALOG.filter((m) => m.kind === 'chat' && !m.retired).flatMap((m) =>
  m.protocols.map((p): [string, number, Protocol] => [m.id, m.familyNumber, p]),
);

describe('inference through the gateway with the official SDKs', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('covers all eight families', () => {
    expect(new Set(cases.map(([, family]) => family))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]));
  });

  describe.each(cases)('%s (family %i) over %s', (model, _family, protocol) => {
    it('answers a text call', async () => {
      const answer = await sdkClient(protocol, gateway.url, gateway.key).text(model, 'Hello there, gateway');
      expect(answer.text).toContain('Hello there, gateway');
      expect(answer.stop).toBe(STOPS[protocol].end);
      expect(answer.inputTokens).toBeGreaterThan(0);
      expect(answer.outputTokens).toBeGreaterThan(0);
    });

    it('streams', async () => {
      const answer = await sdkClient(protocol, gateway.url, gateway.key).stream(model, 'Stream this sentence back to me please');
      expect(answer.text).toContain('Stream this sentence back to me please');
      expect(answer.stop).toBe(STOPS[protocol].end);
      expect(answer.inputTokens).toBeGreaterThan(0);
      expect(answer.outputTokens).toBeGreaterThan(0);
    });

    it.each([false, true])('completes a tool round trip (stream: %s)', async (stream) => {
      const { first, second } = await sdkClient(protocol, gateway.url, gateway.key).toolRoundTrip(model, 'Sunny, 21 degrees', { stream });
      expect(first.stop).toBe(STOPS[protocol].tool);
      expect(first.toolCalls).toHaveLength(1);
      expect(first.toolCalls[0].name).toBe('get_weather');
      expect(typeof first.toolCalls[0].arguments.city).toBe('string');
      expect(second.toolCalls).toHaveLength(0);
      expect(second.text).toContain('Sunny, 21 degrees');
      expect(second.stop).toBe(STOPS[protocol].end);
    });
  });
});
