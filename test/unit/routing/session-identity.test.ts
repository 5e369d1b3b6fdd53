import type { IrRequest } from '../../../src/ir/request';
import { CODECS } from '../../../src/relay/codec-registry';
import { sessionIdentity } from '../../../src/routing/session-identity';

function request(turns: IrRequest['turns'], system = 'be brief'): IrRequest {
  return { model: 'm', system: [{ type: 'text', text: system }], turns, tools: [], builtinTools: [], sampling: {}, stream: false };
}

const first: IrRequest['turns'][number] = { role: 'user', parts: [{ type: 'text', text: 'hello' }] };
const later: IrRequest['turns'] = [
  first,
  { role: 'assistant', parts: [{ type: 'text', text: 'hi' }] },
  { role: 'user', parts: [{ type: 'text', text: 'more' }] },
];

describe('sessionIdentity', () => {
  it("reads the field each protocol's clients send", () => {
    const ir = request([first]);
    expect(sessionIdentity(CODECS['messages'].inbound.sessionSources, { metadata: { user_id: 'u_1_session_9' } }, ir, 1).source).toBe(
      'metadata.user_id',
    );
    expect(sessionIdentity(CODECS['responses'].inbound.sessionSources, { prompt_cache_key: 'k', conversation: 'c' }, ir, 1).source).toBe(
      'prompt_cache_key',
    );
    expect(sessionIdentity(CODECS['responses'].inbound.sessionSources, { conversation: { id: 'conv_1' } }, ir, 1).source).toBe(
      'conversation.id',
    );
    expect(sessionIdentity(CODECS['chat'].inbound.sessionSources, { user: 'alice' }, ir, 1).source).toBe('user');
    expect(sessionIdentity(CODECS['generate-content'].inbound.sessionSources, { cachedContent: 'cachedContents/x' }, ir, 1).source).toBe(
      'cachedContent',
    );
    expect(sessionIdentity(CODECS['chat'].inbound.sessionSources, {}, ir, 1).source).toBe('prefix');
  });

  it('reads a session header before any body field (issue 25)', () => {
    const ir = request([first]);
    const claude = sessionIdentity(CODECS['messages'].inbound.sessionSources, { metadata: { user_id: 'u' } }, ir, 1, {
      'x-claude-code-session-id': 'cc-1',
    });
    expect(claude.source).toBe('header x-claude-code-session-id');
    expect(
      sessionIdentity(CODECS['messages'].inbound.sessionSources, {}, request(later, 'other'), 1, { 'x-claude-code-session-id': 'cc-1' }).id,
    ).toBe(claude.id);
    expect(
      sessionIdentity(CODECS['responses'].inbound.sessionSources, { prompt_cache_key: 'k' }, ir, 1, { session_id: 'codex-1' }).source,
    ).toBe('header session_id');
    expect(sessionIdentity(CODECS['messages'].inbound.sessionSources, {}, ir, 1, { session_id: 'codex-1' }).source).toBe('prefix');
  });

  it('scopes every identity to the API key', () => {
    const ir = request([first]);
    expect(sessionIdentity(CODECS['chat'].inbound.sessionSources, { user: 'alice' }, ir, 1).id).not.toBe(
      sessionIdentity(CODECS['chat'].inbound.sessionSources, { user: 'alice' }, ir, 2).id,
    );
    expect(sessionIdentity(CODECS['chat'].inbound.sessionSources, {}, ir, 1).id).not.toBe(
      sessionIdentity(CODECS['chat'].inbound.sessionSources, {}, ir, 2).id,
    );
  });

  it('keeps one prefix identity across the turns of a conversation, whatever cache markers move', () => {
    const turn1 = sessionIdentity(CODECS['messages'].inbound.sessionSources, {}, request([first]), 1);
    const marked: IrRequest['turns'] = [
      { role: 'user', parts: [{ type: 'text', text: 'hello', cacheHint: { type: 'ephemeral' } }] },
      ...later.slice(1),
    ];
    expect(sessionIdentity(CODECS['messages'].inbound.sessionSources, {}, request(later), 1).id).toBe(turn1.id);
    expect(sessionIdentity(CODECS['messages'].inbound.sessionSources, {}, request(marked), 1).id).toBe(turn1.id);
    expect(sessionIdentity(CODECS['messages'].inbound.sessionSources, {}, request([first], 'another system'), 1).id).not.toBe(turn1.id);
  });
});
