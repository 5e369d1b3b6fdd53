/**
 * Conformance, round trips (every codec): a client request decoded to IR and encoded for an
 * upstream of the same protocol keeps its meaning (decoding that upstream request gives the same
 * IR); an IR answer rendered for a client and read back as an upstream answer of the same protocol
 * gives the same IR, whole and streamed.
 */
import { GatewayError, kindForUpstreamStatus } from '../../../../src/errors/gateway-error';
import { PROTOCOLS, type Protocol } from '../../../../src/ir/protocol';
import type { ContentPart } from '../../../../src/ir/parts';
import type { IrRequest } from '../../../../src/ir/request';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import type { DecodedRequest, InboundStreamOptions, UpstreamTarget } from '../../../../src/protocols/codec';
import { CODECS } from '../../../../src/relay/codec-registry';
import { decodeStream, encodeStream, SIM_MAX_OUTPUT_TOKENS } from '../../../support/codec-harness';
import { collectIrStream, deterministicContext, seededRandom } from '../../../support/sdk-responses';
import { CLIENT_REQUESTS, irAnswers } from './conformance-fixtures';

/** Decodes a client body as the inference router does (Generate-Content: model and method from the path). */
function decodeClient(protocol: Protocol, body: unknown, path?: string): DecodedRequest {
  const decoded = CODECS[protocol].inbound.decodeRequest(structuredClone(body), deterministicContext());
  if (protocol === 'generate-content') {
    const match = /\/models\/([^/:]+):(generateContent|streamGenerateContent)/.exec(path ?? '');
    if (match === null) throw new Error(`not a Generate-Content path: ${path}`);
    decoded.request.model = match[1]!;
    decoded.request.stream = match[2] === 'streamGenerateContent';
  }
  return decoded;
}

/** The upstream is the same model: the request's meaning, not its model name, is under test. */
const SAME_MODEL: UpstreamTarget = { upstreamModel: 'client-model', maxOutputTokens: SIM_MAX_OUTPUT_TOKENS, nativeJsonSchema: true };

/**
 * What an upstream request legitimately adds to what the client said: the usage chunk a Chat
 * upstream is always asked for (pitfall 11), and room for the thinking budget.
 */
function comparableRequest(request: IrRequest): IrRequest {
  const copy = structuredClone(request);
  delete copy.includeUsage;
  // With thinking on, an encoder may raise the cap by the budget (PROTOCOLS.md 2.4: visible output
  // + budget); checked apart below.
  if (copy.reasoning?.budgetTokens !== undefined) delete copy.sampling.maxOutputTokens;
  return copy;
}

/** Reasoning item ids a Responses client must see are synthesized when the answer had none. */
function withoutSynthesizedIds(parts: ContentPart[], original: readonly ContentPart[]): ContentPart[] {
  return parts.map((part, index) => {
    const source = original[index];
    if (part.type === 'reasoning' && source?.type === 'reasoning' && source.itemId === undefined && part.itemId !== undefined) {
      const { itemId: _synthesized, ...rest } = part;
      return rest;
    }
    return part;
  });
}

function streamOptions(protocol: Protocol, response: IrResponse): InboundStreamOptions {
  return { model: response.model, includeUsage: true, sse: true, responseId: protocol === 'responses' ? 'resp_1' : undefined };
}

describe.each(PROTOCOLS)('%s codec', (protocol) => {
  const codec = CODECS[protocol];

  describe('a client request → IR → an upstream request of the same protocol keeps its meaning', () => {
    it.each(CLIENT_REQUESTS[protocol])('$name', (fixture) => {
      const first = decodeClient(protocol, fixture.body, fixture.path);
      const encoded = codec.upstream.encodeRequest(structuredClone(first.request), SAME_MODEL, deterministicContext());
      // Nothing of the client's own protocol is lost on the way back to the same protocol.
      expect(encoded.warnings).toEqual([]);
      const second = decodeClient(protocol, encoded.body, encoded.path);
      expect(comparableRequest(second.request)).toEqual(comparableRequest(first.request));
      const budget = first.request.reasoning?.budgetTokens ?? 0;
      const before = first.request.sampling.maxOutputTokens ?? 0;
      const after = second.request.sampling.maxOutputTokens ?? 0;
      expect(after).toBeGreaterThanOrEqual(before);
      expect(after).toBeLessThanOrEqual(before + budget);
    });
  });

  describe('an IR answer → client response → read back as an upstream answer → the same IR', () => {
    it.each(irAnswers(protocol))('$name', ({ response }) => {
      const context = deterministicContext();
      const body = codec.inbound.encodeResponse(response, streamOptions(protocol, response), context);
      const decoded = codec.upstream.decodeResponse(JSON.parse(JSON.stringify(body)) as unknown, { ...context, toolNames: {} });
      expect(withoutSynthesizedIds(decoded.parts, response.parts)).toEqual(response.parts);
      expect(decoded.usage).toEqual(response.usage);
      expect(decoded.finish.unified).toBe(response.finish.unified);
    });

    it.each(irAnswers(protocol))('$name, streamed and read back at random byte offsets', ({ response }) => {
      const context = deterministicContext();
      const whole = codec.inbound.encodeResponse(response, streamOptions(protocol, response), context);
      const decodedWhole = codec.upstream.decodeResponse(JSON.parse(JSON.stringify(whole)) as unknown, { ...context, toolNames: {} });
      const events = eventsOf(response);
      const frames = encodeStream(protocol, events, streamOptions(protocol, response), context).join('');
      for (const seed of [1, 2, 3]) {
        const folded = collectIrStream(decodeStream(protocol, frames, { ...context, toolNames: {} }, seededRandom(seed)));
        expect(folded.error).toBeUndefined();
        expect(withoutSynthesizedIds(folded.parts, response.parts)).toEqual(withoutSynthesizedIds(decodedWhole.parts, response.parts));
        expect(folded.usage).toEqual(decodedWhole.usage);
        expect(folded.finish?.unified).toBe(response.finish.unified);
      }
    });
  });

  describe('an error rendered for a client → read back as an upstream error → the same kind, message and retry hint', () => {
    it.each([
      new GatewayError('invalid_request', 'messages[0].content: must not be empty', { param: 'messages[0].content' }),
      new GatewayError('rate_limit', 'rate limit reached for the 5h window', { retryAfterSeconds: 17 }),
      new GatewayError('overloaded', 'the model is overloaded', { status: 529 }),
      new GatewayError('internal', 'something broke'),
    ])('$kind', (error) => {
      const rendered = codec.inbound.encodeError(error);
      expect(rendered.status).toBe(error.status);
      const decoded = codec.upstream.decodeError(rendered.status, JSON.stringify(rendered.body), rendered.headers);
      // The one place that maps an upstream status to a kind decides (an upstream 500 is our 502).
      expect(decoded.kind).toBe(kindForUpstreamStatus(rendered.status));
      expect(decoded.message).toContain(error.message);
      expect(decoded.retryAfterSeconds).toBe(error.retryAfterSeconds);
    });
  });
});

/** The stream a decoder would have produced for an answer: one block per part, deltas in pieces. */
function eventsOf(response: IrResponse): IrStreamEvent[] {
  const events: IrStreamEvent[] = [{ type: 'start', id: response.id, model: response.model }];
  response.parts.forEach((part, index) => {
    const half = (text: string): [string, string] => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];
    switch (part.type) {
      case 'text':
        events.push({ type: 'block_start', index, block: { kind: 'text' } });
        for (const piece of half(part.text)) events.push({ type: 'text_delta', index, text: piece });
        break;
      case 'reasoning':
        events.push({ type: 'block_start', index, block: { kind: 'reasoning', ...(part.itemId ? { itemId: part.itemId } : {}) } });
        for (const piece of half(part.text)) events.push({ type: 'reasoning_delta', index, text: piece });
        if (part.signature) events.push({ type: 'reasoning_opaque', index, field: 'signature', value: part.signature });
        if (part.encrypted) events.push({ type: 'reasoning_opaque', index, field: 'encrypted', value: part.encrypted });
        if (part.redacted) events.push({ type: 'reasoning_opaque', index, field: 'redacted', value: part.redacted });
        break;
      case 'tool_call':
        events.push({
          type: 'block_start',
          index,
          block: { kind: 'tool_call', id: part.id, name: part.name, ...(part.signature ? { signature: part.signature } : {}) },
        });
        for (const piece of half(part.argumentsJson)) events.push({ type: 'tool_args_delta', index, json: piece });
        break;
      default:
        throw new Error(`no stream form for a ${part.type} part in these fixtures`);
    }
    events.push({ type: 'block_end', index });
  });
  events.push({ type: 'finish', finish: response.finish }, { type: 'usage', usage: response.usage });
  return events;
}
