/** Provider presets: base URL defaults and normalisation (reported), Azure's deployment URL and api-version, bad input named. */
import { PROVIDER_NAMES, resolveUpstream, UpstreamConfigError, upstreamUrl } from '../../../src/upstream/provider-presets';

describe('provider presets', () => {
  it('covers the providers an operator connects', () => {
    expect(PROVIDER_NAMES).toEqual(
      expect.arrayContaining([
        'anthropic',
        'openai',
        'gemini',
        'azure-openai',
        'deepseek',
        'mistral',
        'xai',
        'moonshot',
        'openrouter',
        'openai-compatible',
      ]),
    );
  });

  it.each([
    ['anthropic', undefined, 'https://api.anthropic.com', 'messages'],
    ['openai', undefined, 'https://api.openai.com', 'responses'],
    ['gemini', undefined, 'https://generativelanguage.googleapis.com', 'generate-content'],
    ['deepseek', undefined, 'https://api.deepseek.com', 'chat'],
    ['mistral', undefined, 'https://api.mistral.ai', 'chat'],
    ['xai', undefined, 'https://api.x.ai', 'chat'],
    ['moonshot', undefined, 'https://api.moonshot.ai', 'chat'],
    ['openrouter', undefined, 'https://openrouter.ai/api', 'chat'],
  ])('%s: default base URL and protocol', (provider, baseUrl, expected, protocol) => {
    const resolved = resolveUpstream({ provider, baseUrl });
    expect(resolved).toMatchObject({ provider, baseUrl: expected, protocol, notes: [] });
  });

  it.each([
    ['openai', 'https://api.openai.com/v1/', 'https://api.openai.com', '/v1'],
    ['openrouter', 'https://openrouter.ai/api/v1', 'https://openrouter.ai/api', '/v1'],
    ['gemini', 'https://generativelanguage.googleapis.com/v1beta', 'https://generativelanguage.googleapis.com', '/v1beta'],
    ['anthropic', 'https://api.anthropic.com/v1', 'https://api.anthropic.com', '/v1'],
    ['openai-compatible', 'http://vllm.internal:8000/v1', 'http://vllm.internal:8000', '/v1'],
  ])('%s: a base URL with its version segment is normalised and the change reported', (provider, given, expected, segment) => {
    const resolved = resolveUpstream({ provider, baseUrl: given });
    expect(resolved.baseUrl).toBe(expected);
    expect(resolved.notes.join(' ')).toContain(`removed the version segment ${segment}`);
    // Without the segment: taken as given, nothing reported.
    expect(resolveUpstream({ provider, baseUrl: expected })).toMatchObject({ baseUrl: expected, notes: [] });
  });

  it('azure-openai: a pasted deployment URL gives the resource and its api-version; calls go to the deployment with api-version', () => {
    const resolved = resolveUpstream({
      provider: 'azure-openai',
      baseUrl: 'https://contoso.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2025-01-01-preview',
    });
    expect(resolved).toMatchObject({ protocol: 'chat', baseUrl: 'https://contoso.openai.azure.com', apiVersion: '2025-01-01-preview' });
    expect(resolved.notes.join(' ')).toMatch(/deployment path/);
    expect(upstreamUrl({ ...resolved, provider: resolved.provider }, '/v1/chat/completions', 'gpt-4.1')).toBe(
      'https://contoso.openai.azure.com/openai/deployments/gpt-4.1/chat/completions?api-version=2025-01-01-preview',
    );
    expect(resolveUpstream({ provider: 'azure-openai', baseUrl: 'https://contoso.openai.azure.com/openai' })).toMatchObject({
      baseUrl: 'https://contoso.openai.azure.com',
      apiVersion: '2024-10-21',
    });
    // A change keeps the stored api-version unless it names one or pastes one in its base URL.
    const kept = { provider: 'azure-openai', keptApiVersion: '2024-06-01' };
    expect(resolveUpstream({ ...kept, baseUrl: 'https://fabrikam.openai.azure.com' }).apiVersion).toBe('2024-06-01');
    expect(resolveUpstream({ ...kept, baseUrl: 'https://fabrikam.openai.azure.com?api-version=2025-01-01-preview' }).apiVersion).toBe(
      '2025-01-01-preview',
    );
    expect(resolveUpstream({ ...kept, baseUrl: 'https://fabrikam.openai.azure.com', apiVersion: '2025-04-01' }).apiVersion).toBe(
      '2025-04-01',
    );
    // Other providers: the codec's path after the base URL.
    expect(upstreamUrl({ baseUrl: 'https://api.x.ai', provider: 'xai' }, '/v1/chat/completions', 'grok-4')).toBe(
      'https://api.x.ai/v1/chat/completions',
    );
  });

  it.each([
    [{ provider: 'openia' }, 'provider', /unknown provider "openia"; use one of anthropic, openai/],
    [{ provider: 'anthropic', protocol: 'chat' as const }, 'protocol', /anthropic speaks messages, not chat/],
    [{ provider: 'openai-compatible' }, 'base_url', /needs a base URL/],
    [{ provider: 'azure-openai' }, 'base_url', /needs a base URL/],
    [{ provider: 'openai', baseUrl: 'ftp://example.com' }, 'base_url', /must be http\(s\)/],
    [{ provider: 'openai', baseUrl: 'not a url' }, 'base_url', /is not a URL/],
    [{ provider: 'openai', baseUrl: 'https://user:pw@example.com' }, 'base_url', /must not carry a user or password/],
    [{ provider: 'openai', apiVersion: '2024-10-21' }, 'api_version', /only taken by azure-openai/],
    [{}, 'provider', /name a provider/],
  ])('refuses %j naming the problem', (input, param, message) => {
    let thrown: unknown;
    try {
      resolveUpstream(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamConfigError);
    expect((thrown as UpstreamConfigError).param).toBe(param);
    expect((thrown as Error).message).toMatch(message);
  });

  it('openai also speaks chat when asked', () => {
    expect(resolveUpstream({ provider: 'openai', protocol: 'chat' })).toMatchObject({ protocol: 'chat', provider: 'openai' });
  });
});
