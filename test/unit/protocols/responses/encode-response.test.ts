/** IR answers → the client-facing Responses object (INTERFACE 2.4). */
import type { FinishReason } from '../../../../src/ir/finish-reason';
import type { IrResponse } from '../../../../src/ir/response';
import { responsesCodec } from '../../../../src/protocols/responses';
import { deterministicContext } from '../../../support/sdk-responses';

const USAGE = { inputTokens: 100, cacheReadTokens: 20, cacheWriteTokens: 5, outputTokens: 50, reasoningTokens: 12 };

function answer(parts: IrResponse['parts'], finish: FinishReason = { unified: 'stop', raw: 'end_turn' }): IrResponse {
  return { id: 'msg_up', model: 'claude-up', parts, finish, usage: USAGE, created: 1 };
}

function encode(response: IrResponse, responseId?: string): Record<string, unknown> {
  return responsesCodec.inbound.encodeResponse(
    response,
    { model: 'claude-sonnet-4-5', ...(responseId ? { responseId } : {}) },
    deterministicContext(42),
  );
}

describe('Responses encodeResponse', () => {
  it('renders the object with normalized usage and output items', () => {
    const body = encode(
      answer(
        [
          { type: 'reasoning', text: 'thinking', signature: { origin: 'messages', value: 's' } },
          { type: 'text', text: 'Hi' },
          { type: 'tool_call', id: 'toolu_1', name: 'f', argumentsJson: '{"a":1}' },
          { type: 'image', source: { kind: 'url', url: 'https://x' } },
          { type: 'native', protocol: 'messages', value: { type: 'web_search_tool_result' } },
        ],
        { unified: 'tool_calls', raw: 'tool_use' },
      ),
    );
    expect(body).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: 42,
      model: 'claude-sonnet-4-5',
      status: 'completed',
      error: null,
      incomplete_details: null,
      usage: {
        input_tokens: 125,
        input_tokens_details: { cached_tokens: 20 },
        output_tokens: 50,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 175,
        reasoning_tokens: 12,
      },
    });
    expect(body.output).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'thinking' }],
        encrypted_content: expect.stringMatching(/^gw1_m_/) as unknown,
      },
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'toolu_1', name: 'f', arguments: '{"a":1}', status: 'completed' },
    ]);
  });

  it('uses the stored response id when the relay gives one', () => {
    expect(encode(answer([]), 'resp_stored').id).toBe('resp_stored');
  });

  it.each<[FinishReason['unified'], string, unknown]>([
    ['stop', 'completed', null],
    ['stop_sequence', 'completed', null],
    ['tool_calls', 'completed', null],
    ['pause', 'completed', null],
    ['other', 'completed', null],
    ['length', 'incomplete', { reason: 'max_output_tokens' }],
    ['context_exceeded', 'incomplete', { reason: 'max_output_tokens' }],
    ['content_filter', 'incomplete', { reason: 'content_filter' }],
    ['error', 'failed', null],
  ])('finish %s → status %s', (unified, status, details) => {
    const body = encode(answer([{ type: 'text', text: 'x' }], { unified, raw: null }));
    expect(body.status).toBe(status);
    expect(body.incomplete_details).toEqual(details);
    expect(body.error === null).toBe(status !== 'failed');
  });

  it('shows Responses-origin reasoning with its own id and encrypted content, and no encrypted content when there is none', () => {
    const body = encode(
      answer([
        {
          type: 'reasoning',
          text: '',
          encrypted: { origin: 'responses', value: 'gAAAA' },
          itemId: { origin: 'responses', value: 'rs_up' },
        },
        { type: 'reasoning', text: 'plain' },
      ]),
    );
    expect(body.output).toEqual([
      { type: 'reasoning', id: 'rs_up', summary: [], encrypted_content: 'gAAAA' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'plain' }] },
    ]);
  });
});
