/** Issue 25 item 5: the header knowledge of the Messages and Responses codecs. */
import { messagesCodec } from '../../../src/protocols/messages';
import { responsesCodec } from '../../../src/protocols/responses';
import { chatCodec } from '../../../src/protocols/chat';

describe('pass-through headers', () => {
  it('Messages keeps anthropic-* and x-claude-code-*, drops credentials and hop-by-hop headers', () => {
    expect(
      messagesCodec.passThroughHeaders({
        'anthropic-version': '2026-10-21',
        'anthropic-workspace-id': 'w',
        'x-claude-code-session-id': 's',
        'x-api-key': 'gw-key',
        authorization: 'Bearer gw-key',
        'anthropic-api-key': 'k',
        'x-claude-code-token': 't',
        connection: 'keep-alive',
        'transfer-encoding': 'chunked',
        host: 'gw',
        cookie: 'c',
      }),
    ).toEqual({ 'anthropic-version': '2026-10-21', 'anthropic-workspace-id': 'w', 'x-claude-code-session-id': 's' });
  });
  it('Messages: 2023-06-01 when only messages-version came; messages-beta becomes anthropic-beta', () => {
    expect(messagesCodec.passThroughHeaders({ 'messages-version': '2024-01-01', 'messages-beta': 'b1' })).toEqual({
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'b1',
    });
  });
  it('Responses keeps session_id, x-codex-*, OpenAI-Beta; Chat forwards none', () => {
    const headers = {
      session_id: 's',
      conversation_id: 'c',
      'x-codex-beta-features': 'x',
      'openai-beta': 'responses_websockets=2026-02-04',
      'chatgpt-account-id': 'acct',
      authorization: 'Bearer k',
      'x-stainless-os': 'Linux',
    };
    expect(responsesCodec.passThroughHeaders(headers)).toEqual({
      session_id: 's',
      conversation_id: 'c',
      'x-codex-beta-features': 'x',
      'openai-beta': 'responses_websockets=2026-02-04',
    });
    expect(chatCodec.passThroughHeaders(headers)).toEqual({});
  });
});
