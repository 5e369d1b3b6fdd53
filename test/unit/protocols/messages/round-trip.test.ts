/**
 * A rich Messages client body decoded to the IR and encoded for a Messages provider comes back the
 * same: proof that the IR carries everything this protocol has (except what the rules change).
 */
import { messagesCodec } from '../../../../src/protocols/messages';
import { testContext } from './helpers';

const BODY = {
  model: 'claude-sonnet-4-5-20250929',
  max_tokens: 16_000,
  system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the bug in this screenshot.' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should read the file.', signature: 'EqQBCkYIBRgCIkBsig' },
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: { path: 'src/a.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01A', content: [{ type: 'text', text: 'export const a = 1;' }] },
        { type: 'text', text: 'Also search the web.', cache_control: { type: 'ephemeral' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Searching.', signature: 'EqQBCkYIBRgCIkBsig2' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'bug' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A', encrypted_content: 'Eq' }],
        },
        { type: 'tool_use', id: 'toolu_01B', name: 'edit_file', input: { path: 'src/a.ts', text: 'export const a = 2;' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01B', content: [{ type: 'text', text: 'ok' }], is_error: true }] },
  ],
  tools: [
    {
      name: 'read_file',
      description: 'Read a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    {
      name: 'edit_file',
      description: 'Edit a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } },
      cache_control: { type: 'ephemeral' },
    },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
  ],
  tool_choice: { type: 'auto', disable_parallel_tool_use: true },
  thinking: { type: 'enabled', budget_tokens: 4096 },
  stop_sequences: ['<END>'],
  metadata: { user_id: 'user-42' },
  service_tier: 'auto',
  context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
  stream: true,
};

describe('Messages request round trip through the IR', () => {
  it('comes back unchanged, with only max_tokens raised by the visible + budget rule', () => {
    const { request, warnings } = messagesCodec.inbound.decodeRequest(BODY, testContext());
    expect(warnings).toEqual([]);
    const encoded = messagesCodec.upstream.encodeRequest(
      request,
      {
        upstreamModel: 'claude-sonnet-4-5-20250929',
        maxOutputTokens: 64_000,
        nativeJsonSchema: true,
      },
      testContext(),
    );
    expect(encoded.warnings).toEqual([]);
    // Names already safe map to themselves: nothing to restore.
    for (const [safe, original] of Object.entries(encoded.toolNames)) expect(safe).toBe(original);
    expect(encoded.body).toEqual({ ...BODY, max_tokens: 16_000 + 4096 });
  });
});
