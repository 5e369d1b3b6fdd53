/**
 * The Responses codec's `streamedRefusal`: a context overflow of a streamed request goes out as
 * OpenAI streams it (`response.created`, `error`, `response.failed` with `context_length_exceeded`,
 * which Codex reads as a full context window); any other refusal is the 400 before the first byte.
 */
import { GatewayError } from '../../../../src/errors/gateway-error';
import { responsesCodec } from '../../../../src/protocols/responses';
import { ssePayloads } from '../../../support/capture-shape';

const context = { newId: (prefix: string) => `${prefix}fixed`, now: () => 1_700_000_000 };
const options = { model: 'tiny-claude', responseId: 'resp_stored' };
const MESSAGE = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

describe('Responses streamedRefusal', () => {
  const refuse = (error: GatewayError) => responsesCodec.inbound.streamedRefusal!(error, options, context);

  it('streams a context overflow as OpenAI does', () => {
    const overflow = new GatewayError('invalid_request', 'prompt is too long: 12000 tokens > 8192 maximum', {
      contextOverflow: { inputTokens: 12_000, maxTokens: 8_192 },
    });
    const events = ssePayloads(refuse(overflow)!) as Array<Record<string, any>>;
    expect(events.map((event) => [event.type, event.sequence_number])).toEqual([
      ['response.created', 0],
      ['error', 1],
      ['response.failed', 2],
    ]);
    expect(events[0]!.response).toMatchObject({ id: 'resp_stored', status: 'in_progress', model: 'tiny-claude' });
    expect(events[1]).toMatchObject({ code: 'context_length_exceeded', message: MESSAGE, param: 'input' });
    expect(events[2]!.response).toMatchObject({
      id: 'resp_stored',
      status: 'failed',
      error: { code: 'context_length_exceeded', message: MESSAGE },
    });
  });

  it('leaves every other refusal to the error envelope', () => {
    expect(refuse(new GatewayError('invalid_request', 'bad field', { param: 'input' }))).toBeUndefined();
    expect(refuse(new GatewayError('rate_limit', 'slow down'))).toBeUndefined();
  });

  it("is the Responses codec's alone: other protocols refuse before the first byte", async () => {
    const { CODECS } = await import('../../../../src/relay/codec-registry');
    const others = Object.values(CODECS).filter((codec) => codec.protocol !== 'responses');
    expect(others.map((codec) => [codec.protocol, codec.inbound.streamedRefusal])).toEqual(
      others.map((codec) => [codec.protocol, undefined]),
    );
  });
});
