/** Catalog models on their native protocols only; `sim-` models everywhere; anything else unknown. */
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { ModelRegistry, type Endpoint } from '../../scripts/provider-sim/models';

const registry = new ModelRegistry();
const CHAT_ENDPOINTS: Endpoint[] = ['messages', 'chat', 'responses', 'generate-content'];

it.each(
  DEFAULT_CATALOG.filter((model) => model.kind === 'chat' && model.retired !== true).map(
    (model) => [model.id, model.nativeProtocols] as const,
  ),
)('%s is served on its native protocols only', (id, native) => {
  for (const endpoint of CHAT_ENDPOINTS) {
    expect(registry.find(endpoint, id) !== undefined).toBe((native as readonly string[]).includes(endpoint));
  }
});

it('serves the image and video models on their own endpoints', () => {
  expect(registry.find('images', 'gpt-image-1')).toBeDefined();
  expect(registry.find('chat', 'gpt-image-1')).toBeUndefined();
  expect(registry.find('generate-content', 'gemini-2.5-flash-image')?.imageOutput).toBe(true);
  expect(registry.find('video', 'veo-3')).toBeDefined();
  expect(registry.find('generate-content', 'veo-3')).toBeUndefined();
});

it('treats retired and unknown names as unknown, sim- names as known everywhere', () => {
  expect(registry.find('messages', 'claude-2.1')).toBeUndefined();
  expect(registry.find('chat', 'gpt-99')).toBeUndefined();
  for (const endpoint of [...CHAT_ENDPOINTS, 'images', 'video'] as Endpoint[]) expect(registry.find(endpoint, 'sim-x')?.isSim).toBe(true);
  expect(registry.find('generate-content', 'sim-g3-flash')?.requiresThoughtSignatures).toBe(true);
  expect(registry.find('generate-content', 'sim-flash')?.requiresThoughtSignatures).toBe(false);
});

it('marks the OpenAI reasoning rules from the catalog capabilities', () => {
  expect(registry.find('chat', 'gpt-5')).toMatchObject({ openaiReasoning: true, rejectsReasoning: false });
  expect(registry.find('chat', 'gpt-4.1')).toMatchObject({ openaiReasoning: false, rejectsReasoning: true });
  expect(registry.find('chat', 'deepseek-v3.2')).toMatchObject({ openaiReasoning: false, rejectsReasoning: false });
});
