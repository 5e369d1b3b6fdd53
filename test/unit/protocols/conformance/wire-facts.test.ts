/**
 * The wire knowledge each codec gives the relay (docs/relay.md, "What a codec provides"), one table
 * per member, every protocol a row: the relay's behaviour for each protocol is these answers.
 */
import { extractCredential } from '../../../../src/auth/extract-credential';
import { GatewayError } from '../../../../src/errors/gateway-error';
import { PROTOCOLS, type Protocol } from '../../../../src/ir/protocol';
import type { IrRequest } from '../../../../src/ir/request';
import { CODECS } from '../../../../src/relay/codec-registry';
import { routeOf } from '../../../../src/relay/inference-routes';
import { createSurfaceOfPath } from '../../../../src/http/answer-client-errors';
import { PLAIN_ROUTE, SSE_ROUTE } from '../../../../src/protocols/shared/wire-frames';

const request = (fields: Partial<IrRequest> = {}): IrRequest =>
  ({ model: 'm', turns: [], tools: [], builtinTools: [], sampling: {}, stream: false, ...fields }) as unknown as IrRequest;

describe('routes', () => {
  it.each([
    ['/v1/messages', 'messages', undefined],
    ['/V1/Messages/', 'messages', undefined],
    ['/v1/responses', 'responses', undefined],
    ['/v1/responses/compact', 'responses', 'compact'],
    ['/v1/chat/completions/', 'chat', undefined],
    ['/v1beta/models/gemini-2.5-pro:generateContent', 'generate-content', undefined],
    ['/v1/models/gemini-2.5-pro:streamGenerateContent', 'generate-content', undefined],
  ] as const)('%s is served by %s', (path, protocol, endpoint) => {
    const route = routeOf(path);
    expect(route?.protocol).toBe(protocol);
    expect(route?.codec).toBe(CODECS[protocol]);
    expect(route?.endpoint).toBe(endpoint);
  });

  it.each(['/v1/messages/count_tokens', '/v1/models', '/v1beta/models/x:countTokens', '/v1/chat', '/v1/responses/x'])(
    '%s is not an inference route',
    (path) => {
      expect(routeOf(path)).toBeUndefined();
    },
  );

  it('a malformed request is answered in the envelope its path names', () => {
    const surfaceOf = createSurfaceOfPath(Object.values(CODECS));
    expect(surfaceOf('/v1/messages/count_tokens')).toBe('messages');
    expect(surfaceOf('/V1BETA/models/x:generateContent')).toBe('generate-content');
    expect(surfaceOf('/v1/chat/completions')).toBe('chat');
    expect(surfaceOf('/v1/responses/input_tokens')).toBe('responses');
    expect(surfaceOf('/v1/models')).toBe('gateway');
  });
});

describe('credentials', () => {
  const headers = { 'x-api-key': 'k-header', authorization: 'Bearer k-bearer', 'x-goog-api-key': 'k-goog' };
  it.each([
    ['messages', 'k-header'],
    ['chat', 'k-header'],
    ['responses', 'k-bearer'],
    ['generate-content', 'k-goog'],
  ] as const)('%s reads its key from its own places first', (protocol, expected) => {
    expect(extractCredential(CODECS[protocol].inbound.credentials, headers, { key: 'k-query' })).toBe(expected);
  });

  it('only Generate-Content reads the query', () => {
    const found = PROTOCOLS.filter(
      (protocol) => extractCredential(CODECS[protocol].inbound.credentials, {}, { key: 'k-query' }) !== undefined,
    );
    expect(found).toEqual(['generate-content']);
  });
});

describe('client headers', () => {
  it('Messages requires a dated version header and forwards its beta header', () => {
    const inbound = CODECS.messages.inbound;
    expect(() => inbound.checkClientHeaders?.({})).toThrow(/missing messages-version/);
    expect(() => inbound.checkClientHeaders?.({ 'anthropic-version': 'latest' })).toThrow(/not a date/);
    expect(() => inbound.checkClientHeaders?.({ 'messages-version': '2024-01-01' })).not.toThrow();
    expect(inbound.readClientHeaders?.({ 'messages-beta': 'b1' })).toEqual({ 'anthropic-beta': 'b1' });
    expect(inbound.readClientHeaders?.({})).toBeUndefined();
  });

  it('the other protocols require and forward none', () => {
    for (const protocol of ['responses', 'chat', 'generate-content'] as const) {
      expect(CODECS[protocol].inbound.checkClientHeaders).toBeUndefined();
      expect(CODECS[protocol].inbound.readClientHeaders).toBeUndefined();
    }
  });
});

describe('route facts and pass-through', () => {
  it('Generate-Content reads the model, the method and alt=sse from the request line', () => {
    const decoded = request();
    const facts = CODECS['generate-content'].inbound.readRoute?.(decoded, '/v1beta/models/models%2Fgemini-2.5-pro:streamGenerateContent', {
      alt: 'sse',
    });
    expect(facts).toBe(SSE_ROUTE);
    expect(decoded.model).toBe('gemini-2.5-pro');
    expect(decoded.stream).toBe(true);
  });

  it.each([
    ['messages', request({ stream: true }), PLAIN_ROUTE, true],
    ['chat', request({ stream: true }), PLAIN_ROUTE, true],
    ['responses', request(), PLAIN_ROUTE, false],
    ['responses', request({ store: false }), PLAIN_ROUTE, true],
    ['responses', request({ store: false, previousResponseId: 'resp_1' }), PLAIN_ROUTE, false],
    ['generate-content', request({ stream: true }), PLAIN_ROUTE, false],
    ['generate-content', request({ stream: true }), SSE_ROUTE, true],
    ['generate-content', request(), PLAIN_ROUTE, true],
  ] as const)('%s: pass-through allowed is %#', (protocol, decoded, facts, allowed) => {
    expect(CODECS[protocol as Protocol].inbound.canPassThrough(decoded, facts)).toBe(allowed);
  });

  it.each([
    ['messages', { stream: true, betaQuery: true }, '/v1/messages?beta=true'],
    ['messages', { stream: false, betaQuery: false }, '/v1/messages'],
    ['responses', { stream: false, betaQuery: true, endpoint: 'compact' }, '/v1/responses/compact'],
    ['chat', { stream: true, betaQuery: true }, '/v1/chat/completions'],
    ['generate-content', { stream: true, betaQuery: false }, '/v1beta/models/a%2Fb:streamGenerateContent?alt=sse'],
    ['generate-content', { stream: false, betaQuery: false }, '/v1beta/models/a%2Fb:generateContent'],
  ] as const)('%s pass-through path for %j', (protocol, call, path) => {
    expect(CODECS[protocol as Protocol].passThroughPath('a/b', call)).toBe(path);
  });

  it('pass-through bodies get the upstream model, except Generate-Content (the path names it); Chat asks for usage when streaming', () => {
    const fixed = Object.fromEntries(
      PROTOCOLS.map((protocol) => {
        const body: Record<string, unknown> = { model: 'slug', max_tokens: 5 };
        CODECS[protocol].fixPassThroughBody(body, 'upstream-model', 'openai', true);
        return [protocol, body];
      }),
    );
    expect(fixed.messages).toEqual({ model: 'upstream-model', max_tokens: 5 });
    expect(fixed.responses).toEqual({ model: 'upstream-model', max_tokens: 5 });
    expect(fixed['generate-content']).toEqual({ model: 'slug', max_tokens: 5 });
    expect(fixed.chat).toEqual({ model: 'upstream-model', max_tokens: 5, stream_options: { include_usage: true } });
  });

  it('only Chat filters a pass-through stream, and only when the client did not ask for usage', () => {
    const filter = CODECS.chat.passThroughStreamFilter?.(request());
    expect(filter?.('data: {"choices":[],"usage":{"prompt_tokens":1}}\n\ndata: [DONE]\n\n')).toBe('data: [DONE]\n\n');
    expect(CODECS.chat.passThroughStreamFilter?.(request({ includeUsage: true }))).toBeUndefined();
    expect(PROTOCOLS.filter((protocol) => CODECS[protocol].passThroughStreamFilter)).toEqual(['chat']);
  });
});

describe('frames', () => {
  it.each([
    ['messages', false, ': keepalive\n\n'],
    ['responses', false, ': keepalive\n\n'],
    ['chat', false, ': keepalive\n\n'],
    ['generate-content', true, ': keepalive\n\n'],
    ['generate-content', false, '\n'],
  ] as const)('%s keepalive (sse %s)', (protocol, sse, frame) => {
    expect(CODECS[protocol as Protocol].inbound.keepaliveFrame({ model: 'm', sse })).toBe(frame);
  });

  it("a pass-through stream cut without an error frame gets the protocol's bare one", () => {
    const error = new GatewayError('upstream_error', 'cut');
    const frame = (protocol: Protocol, sse = true) => CODECS[protocol].inbound.passThroughErrorFrame(error, { model: 'm', sse });
    expect(frame('messages')).toMatch(/^event: error\ndata: \{"type":"error","error":\{.*"message":"cut"/);
    expect(frame('responses')).toMatch(/^event: error\ndata: \{"type":"error","code":.*"message":"cut"/);
    expect(frame('chat')).toMatch(/^data: \{"error":\{.*"message":"cut"/);
    expect(frame('generate-content')).toMatch(/^data: \{"error":\{/);
    expect(frame('generate-content', false)).toMatch(/^,\{"error":\{.*\}\]$/);
  });
});

describe('upstream', () => {
  it.each([
    ['messages', { 'x-api-key': 'c', 'anthropic-version': '2023-06-01' }],
    ['responses', { authorization: 'Bearer c' }],
    ['chat', { authorization: 'Bearer c' }],
    ['generate-content', { 'x-goog-api-key': 'c' }],
  ] as const)('%s credential headers', (protocol, expected) => {
    const headers: Record<string, string> = {};
    CODECS[protocol as Protocol].upstream.authenticate(headers, 'c');
    expect(headers).toEqual(expected);
  });

  it('Messages keeps a client version; only Messages lacks native JSON schema; only Generate-Content needs image bytes', () => {
    const headers: Record<string, string> = { 'anthropic-version': '2024-01-01' };
    CODECS.messages.upstream.authenticate(headers, 'c');
    expect(headers['anthropic-version']).toBe('2024-01-01');
    expect(PROTOCOLS.filter((protocol) => !CODECS[protocol].upstream.nativeJsonSchema)).toEqual(['messages']);
    expect(PROTOCOLS.filter((protocol) => CODECS[protocol].upstream.needsInlineImages)).toEqual(['generate-content']);
  });

  it('token counting: three protocols, each in its own shape', () => {
    expect(PROTOCOLS.filter((protocol) => CODECS[protocol].countTokens)).toEqual(['messages', 'responses', 'generate-content']);
    expect(CODECS.messages.countTokens?.encodeCount(3)).toEqual({ input_tokens: 3 });
    expect(CODECS.responses.countTokens?.encodeCount(3)).toEqual({ object: 'response.input_tokens', input_tokens: 3 });
    expect(CODECS['generate-content'].countTokens?.encodeCount(3)).toEqual({ totalTokens: 3 });
    expect(CODECS['generate-content'].countTokens?.readUpstreamCount({ totalTokens: 7 })).toBe(7);
    expect(CODECS.messages.countTokens?.readUpstreamCount({ input_tokens: -1 })).toBeUndefined();
    expect(CODECS['generate-content'].countTokens?.upstreamPath('a b')).toBe('/v1beta/models/a%20b:countTokens');
  });
});
