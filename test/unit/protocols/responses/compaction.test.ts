/**
 * Issue 25 item 1: remote compaction in the Responses codec: compaction items and triggers decoded,
 * the summary request, the answer with its one compaction item (compact body, whole answer, events),
 * and the gateway's item opened into its summary when it comes back.
 */
import { randomBytes } from 'node:crypto';
import type { IrResponse } from '../../../../src/ir/response';
import { responsesCodec } from '../../../../src/protocols/responses';
import { deriveCompactionKey } from '../../../../src/protocols/responses/compaction-carrier';
import {
  encodeCompactionAnswer,
  hasCompactionTrigger,
  openCompactionItems,
  summaryRequest,
} from '../../../../src/protocols/responses/compaction';
import { deterministicContext } from '../../../support/sdk-responses';

const KEY = deriveCompactionKey(randomBytes(32));
const SUMMARY: IrResponse = {
  id: 'msg_up',
  model: 'claude-up',
  parts: [{ type: 'text', text: 'The user fixes the build; codeword zebra-4412.' }],
  finish: { unified: 'stop', raw: 'end_turn' },
  usage: { inputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 40, reasoningTokens: 0 },
};

const decode = (input: unknown[]) =>
  responsesCodec.inbound.decodeRequest(
    { model: 'claude-sonnet-4-5', input, tools: [{ type: 'function', name: 'shell', parameters: {} }] },
    deterministicContext(1),
  ).request;

function answer(endpoint: 'compact' | 'trigger', stream = false) {
  return encodeCompactionAnswer(SUMMARY, {
    endpoint,
    stream,
    key: KEY,
    accountId: 3,
    streamOptions: { model: 'claude-sonnet-4-5' },
    context: deterministicContext(5),
  });
}

describe('remote compaction in the Responses codec', () => {
  it('recognises a compaction_trigger item and drops it from the content', () => {
    const body = { model: 'm', input: [{ role: 'user', content: 'hi' }, { type: 'compaction_trigger' }] };
    expect(hasCompactionTrigger(body)).toBe(true);
    expect(hasCompactionTrigger({ model: 'm', input: 'hi' })).toBe(false);
    expect(JSON.stringify(decode(body.input).turns)).not.toContain('compaction_trigger');
  });

  it('asks the target model for a summary after the conversation, without tool use', () => {
    const request = summaryRequest(
      decode([
        { role: 'user', content: 'Fix the build' },
        { role: 'assistant', content: 'On it' },
      ]),
    );
    expect(request.turns.at(-1)).toMatchObject({
      role: 'user',
      parts: [{ type: 'text', text: expect.stringContaining('handoff summary') }],
    });
    expect(request.toolChoice).toEqual({ type: 'none' });
    expect(request.stream).toBe(false);
  });

  it('answers the compact endpoint with exactly one sealed compaction item and the usage', () => {
    const body = JSON.parse(answer('compact').body) as Record<string, any>;
    expect(body).toMatchObject({ object: 'response.compaction', usage: { input_tokens: 300, output_tokens: 40 } });
    expect(body.output).toHaveLength(1);
    expect(body.output[0]).toMatchObject({ type: 'compaction', encrypted_content: expect.stringMatching(/^gwcmp1\./) });
    expect(answer('compact').body).not.toContain('zebra-4412');
  });

  it('answers a trigger with one compaction item, whole or as the Responses events', () => {
    const whole = JSON.parse(answer('trigger').body) as Record<string, any>;
    expect(whole).toMatchObject({ object: 'response', status: 'completed' });
    expect(whole.output.map((item: { type: string }) => item.type)).toEqual(['compaction']);
    const streamed = answer('trigger', true);
    expect(streamed.contentType).toBe('text/event-stream');
    const events = streamed.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, any>);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4]);
    expect(events.at(-1)!.response.output).toHaveLength(1);
  });

  it("opens the gateway's item into its summary and leaves a provider's own item alone", () => {
    const item = (JSON.parse(answer('compact').body) as { output: unknown[] }).output[0];
    const provider = { type: 'compaction', id: 'cmp_x', encrypted_content: 'gAAAA-provider' };
    const request = decode([item, provider, { role: 'user', content: 'Continue' }]);
    expect(openCompactionItems(request, KEY, 3)).toBe(1);
    const parts = request.turns.flatMap((turn) => turn.parts);
    expect(parts[0]).toEqual({ type: 'text', text: expect.stringContaining('zebra-4412') });
    expect(parts[1]).toMatchObject({ type: 'native', value: provider });
    expect(() => openCompactionItems(decode([item]), KEY, 4)).toThrow(/not issued by the gateway to this account/);
  });
});
