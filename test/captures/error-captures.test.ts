/**
 * Issue 9, recorded provider errors: OpenAI's quota error (`responses/openai-error.1.json`, a 429
 * body, and `.chunks.txt`, the same failure inside a stream) and Google's 429 with a `RetryInfo`
 * delay. Each maps to the same gateway error (kind, status, provider message, retry hint) whether it
 * came as a body or mid-stream, then to every client protocol's error envelope (with `retry-after`
 * where the upstream gave a delay) and mid-stream error frame, both judged by the official SDKs.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import OpenAI from 'openai';
import type { GatewayError } from '../../src/errors/gateway-error';
import { PROTOCOLS, type Protocol } from '../../src/ir/protocol';
import { SseParser } from '../../src/protocols/shared/sse-parser';
import { CODECS } from '../../src/relay/codec-registry';
import { capturesPresent, readCaptureText, streamCaptures } from '../support/capture-files';
import { startPassThroughRelay, type PassThroughRelay } from '../support/capture-relay';
import { sdkErrorForEnvelope, sdkErrorForStream } from '../support/capture-sdk-error';
import { decodeContext, deterministicContext } from '../support/sdk-responses';

const OPENAI_MESSAGE =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, ' +
  'read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';
const GOOGLE_MESSAGE = 'You exceeded your current quota, please check your plan.';

interface ErrorCase {
  name: string;
  decode(): GatewayError;
  message: string;
  /** The delay the upstream gave (header or RetryInfo), in seconds. */
  retryAfterSeconds?: number;
}

function streamedError(): GatewayError {
  const capture = streamCaptures('responses').find((candidate) => candidate.name === 'openai-error.1');
  if (capture === undefined) throw new Error('responses/openai-error.1.chunks.txt is missing');
  const decoder = CODECS.responses.upstream.createStreamDecoder(decodeContext());
  const events = [...decoder.push(capture.sse), ...decoder.end()];
  expect(events.some((event) => event.type === 'finish')).toBe(false);
  const error = events.find((event) => event.type === 'error');
  if (error?.type !== 'error') throw new Error(`no error event in ${events.map((event) => event.type).join(', ')}`);
  return error.error;
}

/**
 * OpenAI answers `insufficient_quota` with HTTP 429 (the capture keeps the body only), without a
 * `retry-after`; the second case adds one to show it is carried over.
 */
const CASES: ErrorCase[] = [
  {
    name: 'responses/openai-error.1.json (HTTP 429, no retry hint)',
    decode: () => CODECS.responses.upstream.decodeError(429, readCaptureText('responses', 'openai-error.1.json'), {}),
    message: OPENAI_MESSAGE,
  },
  {
    name: 'responses/openai-error.1.json (HTTP 429, retry-after: 7)',
    decode: () => CODECS.responses.upstream.decodeError(429, readCaptureText('responses', 'openai-error.1.json'), { 'retry-after': '7' }),
    message: OPENAI_MESSAGE,
    retryAfterSeconds: 7,
  },
  {
    name: 'responses/openai-error.1.json from a Chat upstream (same OpenAI envelope, retry-after-ms: 2500)',
    decode: () => CODECS.chat.upstream.decodeError(429, readCaptureText('responses', 'openai-error.1.json'), { 'retry-after-ms': '2500' }),
    message: OPENAI_MESSAGE,
    retryAfterSeconds: 2.5,
  },
  { name: 'responses/openai-error.1.chunks.txt (the quota error mid-stream)', decode: streamedError, message: OPENAI_MESSAGE },
  {
    name: 'generate-content/google-429-retry-info.json (RetryInfo 34.4s)',
    decode: () =>
      CODECS['generate-content'].upstream.decodeError(429, readCaptureText('generate-content', 'google-429-retry-info.json'), {}),
    message: GOOGLE_MESSAGE,
    retryAfterSeconds: 34.4,
  },
];

/** The envelope fields that say "rate limited" in each protocol (PROTOCOLS.md section 5). */
function expectRateLimitBody(protocol: Protocol, body: Record<string, unknown>, message: string): void {
  switch (protocol) {
    case 'messages':
      expect(body).toEqual({ type: 'error', error: { type: 'rate_limit_error', message } });
      break;
    case 'chat':
    case 'responses':
      expect(body.error).toMatchObject({ message, code: 'rate_limit_exceeded' });
      break;
    case 'generate-content':
      expect(body.error).toMatchObject({ code: 429, message, status: 'RESOURCE_EXHAUSTED' });
      break;
  }
}

/** The SDK's own rate-limit error for the protocol, carrying the provider's message. */
function expectSdkRateLimit(protocol: Protocol, error: unknown, message: string): void {
  switch (protocol) {
    case 'messages':
      expect(error).toBeInstanceOf(Anthropic.RateLimitError);
      break;
    case 'chat':
    case 'responses':
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      break;
    case 'generate-content':
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(429);
      break;
  }
  expect((error as Error).message).toContain(message);
}

/** A stream that had started answering, then failed: start, a text block with "Partial", then `fail`. */
function failedStreamFrames(protocol: Protocol, error: GatewayError): { frames: string[]; afterFail: string[] } {
  const encoder = CODECS[protocol].inbound.createStreamEncoder(
    { model: 'capture-error-model', sse: true, includeUsage: true },
    deterministicContext(),
  );
  const frames = [
    ...encoder.push({ type: 'start', id: 'msg_capture', model: 'capture-error-model' }),
    ...encoder.push({ type: 'block_start', index: 0, block: { kind: 'text' } }),
    ...encoder.push({ type: 'text_delta', index: 0, text: 'Partial' }),
    ...encoder.fail(error),
  ];
  const afterFail = [...encoder.push({ type: 'text_delta', index: 0, text: 'more' }), ...encoder.end()];
  return { frames, afterFail };
}

if (!capturesPresent('capture error suite')) {
  describe.skip('error captures (../shared/captures absent)', () => {
    it('needs the captures', () => undefined);
  });
} else {
  describe('error captures', () => {
    describe.each(CASES.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
      it('maps to the gateway rate_limit error (429) with the provider message and its retry hint', () => {
        const error = testCase.decode();
        expect({ kind: error.kind, status: error.status, message: error.message, retryAfterSeconds: error.retryAfterSeconds }).toEqual({
          kind: 'rate_limit',
          status: 429,
          message: testCase.message,
          retryAfterSeconds: testCase.retryAfterSeconds,
        });
        // An upstream's rate limit lets the relay try another account before the first byte.
        expect(error.retryable).toBe(true);
      });

      it.each(PROTOCOLS)('renders the %s error envelope with retry-after where the upstream gave a delay', async (protocol) => {
        const error = testCase.decode();
        const rendered = CODECS[protocol].inbound.encodeError(error);
        expect(rendered.status).toBe(429);
        expectRateLimitBody(protocol, rendered.body, testCase.message);
        const expectedRetryAfter = testCase.retryAfterSeconds === undefined ? undefined : String(Math.ceil(testCase.retryAfterSeconds));
        expect(rendered.headers['retry-after']).toBe(expectedRetryAfter);
        if (protocol === 'generate-content' && testCase.retryAfterSeconds !== undefined) {
          // Google's own form of the hint, which Generate-Content clients read.
          expect((rendered.body.error as { details?: unknown }).details).toContainEqual({
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${testCase.retryAfterSeconds}s`,
          });
        }
        expectSdkRateLimit(protocol, await sdkErrorForEnvelope(protocol, rendered), testCase.message);
      });

      it.each(PROTOCOLS)("ends a started %s stream with the protocol's error frame, which the SDK raises", async (protocol) => {
        const error = testCase.decode();
        const { frames, afterFail } = failedStreamFrames(protocol, error);
        expect(afterFail).toEqual([]);
        const wire = frames.join('');
        expect(wire).toContain('Partial');
        switch (protocol) {
          case 'messages':
            expect(wire).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"rate_limit_error"/);
            expect(wire).not.toContain('message_stop');
            break;
          case 'chat':
            expect(wire).toContain('"code":"rate_limit_exceeded"');
            expect(wire).not.toContain('finish_reason":"stop');
            break;
          case 'responses':
            expect(wire).toContain('event: error\n');
            expect(wire).toContain('"code":"rate_limit_exceeded"');
            expect(wire).toContain('event: response.failed\n');
            expect(wire).not.toContain('response.completed');
            break;
          case 'generate-content':
            expect(wire).toContain('"status":"RESOURCE_EXHAUSTED"');
            expect(wire).not.toContain('"finishReason":"STOP"');
            break;
        }
        const raised = await sdkErrorForStream(protocol, frames);
        expect(raised).toBeInstanceOf(Error);
        expect((raised as Error).message).toContain(testCase.message);
      });
    });

    describe('the recorded error stream on the native pass-through path', () => {
      let relay: PassThroughRelay;
      beforeAll(async () => {
        relay = await startPassThroughRelay();
      });
      afterAll(async () => {
        await relay.close();
      });
      const capture = () => {
        const found = streamCaptures('responses').find((candidate) => candidate.name === 'openai-error.1');
        if (found === undefined) throw new Error('responses/openai-error.1.chunks.txt is missing');
        return found;
      };

      it('before the first byte, is handed back to the attempt loop (failover) with nothing sent and nothing billed', async () => {
        const result = await relay.run({ protocol: 'responses', stream: true, upstreamPieces: [Buffer.from(capture().sse)] });
        expect(result.outcome).toMatchObject({ kind: 'retry', error: { kind: 'rate_limit', status: 429 } });
        expect(result.body).toBe('');
        expect(result.usageEvents).toEqual([]);
      });

      it('after the first byte, reaches the client as the recorded frames then an error the SDK raises, billed nothing', async () => {
        const sse = capture().sse;
        const errorAt = sse.indexOf('event: error');
        const result = await relay.run({
          protocol: 'responses',
          stream: true,
          upstreamPieces: [Buffer.from(sse.slice(0, errorAt)), Buffer.from(sse.slice(errorAt))],
        });
        expect(result.status).toBe(200);
        expect(result.body.startsWith(sse.slice(0, errorAt))).toBe(true);
        expect(result.body).not.toContain('response.completed');
        // Still one Responses stream: one `response.created`, increasing sequence numbers, one terminal `response.failed`.
        const events = new SseParser()
          .push(result.body)
          .map((event) => JSON.parse(event.data) as { type: string; sequence_number: number });
        expect(events.filter((event) => event.type === 'response.created')).toHaveLength(1);
        expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
        expect(events.filter((event) => event.type === 'response.failed')).toHaveLength(1);
        expect(events.at(-1)?.type).toBe('response.failed');
        const raised = await sdkErrorForStream('responses', [result.body]);
        expect((raised as Error).message).toContain(OPENAI_MESSAGE);
        expect(result.usageEvents).toEqual([]);
        expect(result.released).toBe(true);
      });
    });
  });
}
