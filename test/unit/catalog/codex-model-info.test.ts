/** Issue 25 item 7: Codex's model-info shape, built from a catalog model. */
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';
import { codexModelInfo, servesCodex } from '../../../src/catalog/codex-model-info';

describe('Codex model info', () => {
  const sonnet = DEFAULT_CATALOG.find((model) => model.id === 'claude-sonnet-4-5')!;

  it('carries the fields Codex 0.169 requires, from the catalog', () => {
    const info = codexModelInfo(sonnet, 2);
    for (const field of [
      'slug',
      'display_name',
      'supported_reasoning_levels',
      'shell_type',
      'visibility',
      'supported_in_api',
      'priority',
      'support_verbosity',
      'truncation_policy',
      'model_messages',
      'experimental_supported_tools',
    ])
      expect(info).toHaveProperty(field);
    expect(info).toMatchObject({
      slug: 'claude-sonnet-4-5',
      context_window: sonnet.contextWindow,
      priority: 2,
      model_messages: { instructions_template: expect.any(String) },
    });
  });

  it('lists only the models Codex can call (the Responses protocol)', () => {
    expect(servesCodex(sonnet)).toBe(true);
    expect(DEFAULT_CATALOG.filter(servesCodex).every((model) => model.protocols.includes('responses'))).toBe(true);
    expect(DEFAULT_CATALOG.some((model) => model.kind === 'chat' && !servesCodex(model))).toBe(true);
  });
});
