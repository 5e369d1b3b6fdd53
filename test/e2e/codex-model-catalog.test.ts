/**
 * Issue 25 item 7: Codex's catalog request, `GET /v1/models?client_version=…`, answers the model-info
 * list Codex reads (its context window is what Codex compacts by), built from the catalog; without
 * the parameter the listing is unchanged.
 */
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

describe('issue 25 item 7: Codex model catalog', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  const list = async (query: string) => {
    const response = await fetch(`${gateway.url}/v1/models${query}`, { headers: { authorization: `Bearer ${gateway.key}` } });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it("answers Codex's model-info list for the models Codex can call", async () => {
    const { status, body } = await list('?client_version=0.169.0');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['models']);
    const expected = DEFAULT_CATALOG.filter((m) => m.kind === 'chat' && !m.retired && m.protocols.includes('responses'));
    expect(body.models.map((m: { slug: string }) => m.slug).sort()).toEqual(expected.map((m) => m.id).sort());
    const sonnet = body.models.find((m: { slug: string }) => m.slug === 'claude-sonnet-4-5');
    const catalog = DEFAULT_CATALOG.find((m) => m.id === 'claude-sonnet-4-5')!;
    expect(sonnet).toMatchObject({
      display_name: 'claude-sonnet-4-5',
      context_window: catalog.contextWindow,
      visibility: 'list',
      supported_in_api: true,
      shell_type: 'shell_command',
      truncation_policy: { mode: 'tokens', limit: expect.any(Number) },
    });
    expect(sonnet.input_modalities).toContain('text');
    expect(Array.isArray(sonnet.supported_reasoning_levels)).toBe(true);
    // Codex 0.169 refuses the whole list without an instructions template per model.
    expect(typeof sonnet.model_messages.instructions_template).toBe('string');
  });

  it('leaves the listing unchanged without client_version', async () => {
    const { status, body } = await list('');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    expect(body.data.some((m: { id: string }) => m.id === 'claude-sonnet-4-5')).toBe(true);
  });
});
