/** The per-key model allowlist's matching (issue 21): exact slugs, `prefix*`, `*`, empty = every model. */
import { ALLOW_EVERY_MODEL, assertModelAllowed, compileModelAllowlist, MODEL_PATTERN } from '../../../src/auth/model-allowlist';
import { GatewayError } from '../../../src/errors/gateway-error';

describe('model allowlist', () => {
  it('matches exact slugs and prefixes, nothing else', () => {
    const list = compileModelAllowlist(['gpt-4.1', 'claude-haiku*']);
    expect(['gpt-4.1', 'claude-haiku-4-5', 'claude-haiku-5-5'].map(list.allows)).toEqual([true, true, true]);
    expect(['gpt-4.1-mini', 'gpt-4', 'claude-sonnet-4-5', 'xclaude-haiku'].map(list.allows)).toEqual([false, false, false, false]);
  });

  it('allows everything when empty or `*`', () => {
    expect(compileModelAllowlist([])).toBe(ALLOW_EVERY_MODEL);
    expect(compileModelAllowlist(['*']).allows('anything')).toBe(true);
  });

  it('refuses with 403 permission naming the model', () => {
    expect(() => assertModelAllowed({ allowedModels: compileModelAllowlist(['gpt-4.1']) }, 'gpt-5')).toThrow(
      expect.objectContaining({ kind: 'permission', status: 403, message: 'model not allowed for this key: gpt-5' }) as GatewayError,
    );
  });

  it('accepts slugs and one trailing star only', () => {
    expect(['gpt-4.1', 'claude-haiku*', '*', 'models/gemini-2.5-flash'].every((p) => MODEL_PATTERN.test(p))).toBe(true);
    expect(['gpt*5', '**', '', ' gpt', 'a b', '-x'].some((p) => MODEL_PATTERN.test(p))).toBe(false);
  });
});
