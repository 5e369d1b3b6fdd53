/**
 * Issue 25 item 2: a prompt over the model's context window is refused by each simulated provider
 * in its own words (Anthropic "prompt is too long", OpenAI `context_length_exceeded`, Google's
 * token-limit INVALID_ARGUMENT, DeepSeek's, Mistral's, xAI's and Moonshot's variants), and the
 * gateway re-issues it in the caller's protocol as the caller's own provider words it, on native
 * and translated routes alike, streamed or not. Nothing is billed. A streamed Responses request is
 * refused inside its stream, as OpenAI does (200, `error` and `response.failed` with
 * `context_length_exceeded`: what Codex reads as a full context window); every other is an HTTP 400.
 * The request log records the refusal as an error of the overflow's class.
 */
import type { CatalogModel } from '../../src/catalog/model';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { expectNothingCharged } from '../support/charges';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { ssePayloads } from '../support/capture-shape';
import { startRequestLogWorker, type RequestLogWorker } from '../../workers/request-log-worker';
import { eventually } from '../integration/billing/billing-fixtures';

jest.setTimeout(90_000);

/** 48 KB of text: about 12 000 simulator tokens, over the 8 192 of `sim-small-context`. */
const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(1100);
const WINDOW = 8_192;

type Caller = 'messages' | 'chat' | 'responses' | 'generate-content';
const ALL: CatalogModel['protocols'] = ['messages', 'responses', 'chat', 'generate-content'];

/** Small-context catalog models on every upstream family, each served by the simulator. */
const TARGETS: Array<{ id: string; upstreamModel: string; family: string; native: CatalogModel['nativeProtocols'] }> = [
  { id: 'tiny-claude', upstreamModel: 'sim-small-context', family: 'anthropic', native: ['messages'] },
  { id: 'tiny-gpt', upstreamModel: 'sim-small-context', family: 'openai', native: ['responses', 'chat'] },
  // Served by a Responses upstream only: a streamed call of any other protocol meets OpenAI's in-stream refusal.
  { id: 'tiny-gpt-responses', upstreamModel: 'sim-small-context', family: 'openai', native: ['responses'] },
  { id: 'tiny-gemini', upstreamModel: 'sim-small-context', family: 'google', native: ['generate-content'] },
  { id: 'tiny-deepseek', upstreamModel: `sim-ctx-${WINDOW}-deepseek`, family: 'deepseek', native: ['chat'] },
  { id: 'tiny-mistral', upstreamModel: `sim-ctx-${WINDOW}-mistral`, family: 'mistral', native: ['chat'] },
  { id: 'tiny-grok', upstreamModel: `sim-ctx-${WINDOW}-xai`, family: 'xai', native: ['chat'] },
  { id: 'tiny-kimi', upstreamModel: `sim-ctx-${WINDOW}-moonshot`, family: 'moonshot', native: ['chat'] },
];

function catalogEntry(base: CatalogModel, target: (typeof TARGETS)[number]): CatalogModel {
  return {
    ...structuredClone(base),
    id: target.id,
    aliases: [],
    family: target.family,
    upstreamModel: target.upstreamModel,
    contextWindow: WINDOW,
    maxOutputTokens: 1_024,
    nativeProtocols: target.native,
    protocols: ALL,
    capabilities: ['text', 'streaming', 'tool_use'],
  };
}

interface Answer {
  status: number;
  text: string;
  json: any;
  requestId: string;
  contentType: string;
}

const RESPONSES_OVERFLOW = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

async function call(gateway: TestGateway, key: string, caller: Caller, model: string, stream: boolean, prompt = LONG): Promise<Answer> {
  const request = requestFor(caller, model, stream, key, prompt);
  const response = await fetch(gateway.url + request.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...request.headers },
    body: JSON.stringify(request.body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    text,
    json,
    requestId: response.headers.get('x-request-id') ?? '',
    contentType: response.headers.get('content-type') ?? '',
  };
}

function requestFor(
  caller: Caller,
  model: string,
  stream: boolean,
  key: string,
  prompt: string,
): { path: string; headers: Record<string, string>; body: unknown } {
  switch (caller) {
    case 'messages':
      return {
        path: '/v1/messages',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: { model, max_tokens: 64, stream, messages: [{ role: 'user', content: prompt }] },
      };
    case 'chat':
      return {
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        body: { model, stream, messages: [{ role: 'user', content: prompt }] },
      };
    case 'responses':
      return { path: '/v1/responses', headers: { authorization: `Bearer ${key}` }, body: { model, stream, store: false, input: prompt } };
    case 'generate-content':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { 'x-goog-api-key': key },
        body: { contents: [{ role: 'user', parts: [{ text: prompt }] }] },
      };
  }
}

/** OpenAI's streamed refusal: `response.created`, then `error` and `response.failed` with the overflow's code. */
function expectStreamedResponsesOverflow(answer: Pick<Answer, 'status' | 'text'>): void {
  expect(answer.status).toBe(200);
  const events = ssePayloads(answer.text) as Array<Record<string, any>>;
  expect(events.map((event) => event.type).filter((type) => type !== 'response.in_progress')).toEqual([
    'response.created',
    'error',
    'response.failed',
  ]);
  expect(events[0]!.response.status).toBe('in_progress');
  expect(events.find((event) => event.type === 'error')).toMatchObject({
    code: 'context_length_exceeded',
    message: RESPONSES_OVERFLOW,
    param: 'input',
  });
  const failed = events.at(-1)!;
  expect(failed.response).toMatchObject({ status: 'failed', error: { code: 'context_length_exceeded', message: RESPONSES_OVERFLOW } });
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
}

/** The caller's own provider's wording, with the numbers a client reads. */
function expectCallerOverflow(caller: Caller, answer: Answer, stream: boolean): void {
  if (caller === 'responses' && stream) {
    expectStreamedResponsesOverflow(answer);
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    return;
  }
  expect(answer.status).toBe(400);
  switch (caller) {
    case 'messages': {
      expect(answer.json.type).toBe('error');
      expect(answer.json.error.type).toBe('invalid_request_error');
      const match = /^prompt is too long: (\d+) tokens > (\d+) maximum$/.exec(answer.json.error.message);
      expect(match).not.toBeNull();
      expect(Number(match![1])).toBeGreaterThan(Number(match![2]));
      expect(Number(match![2])).toBe(WINDOW);
      break;
    }
    case 'chat':
      expect(answer.json.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded' });
      expect(answer.json.error.message).toMatch(/maximum context length is \d+ tokens/);
      break;
    case 'responses':
      expect(answer.json.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        param: 'input',
        message: RESPONSES_OVERFLOW,
      });
      break;
    case 'generate-content':
      expect(answer.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(answer.json.error.message).toMatch(/^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(8192\)\.$/);
      break;
  }
}

describe("context overflow reaches each client in its own provider's words", () => {
  let gateway: TestGateway;
  let worker: RequestLogWorker;
  let key: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    worker = await startRequestLogWorker(gateway.deps, { lingerMs: 5, blockMs: 200 });
    const base = gateway.deps.catalog.find('gpt-4.1')!;
    gateway.deps.catalog.replace([...gateway.deps.catalog.models, ...TARGETS.map((target) => catalogEntry(base, target))]);
    const groupId = await createGroup(gateway.deps.db, { name: 'tiny', family: null });
    for (const protocol of ['messages', 'chat', 'responses', 'generate-content'] as const) {
      const models = TARGETS.filter((target) => target.native.includes(protocol)).map((target) => target.id);
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: `tiny-${protocol}`,
        protocol,
        baseUrl: gateway.sim.url,
        apiKey: 'sim-key',
        models,
      });
    }
    gateway.services.upstreams.invalidate();
    key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'tiny' })).secret;
  });
  afterAll(async () => {
    await worker?.close();
    await gateway?.close();
  });

  /** The request's final record in the request log. */
  const record = (requestId: string) =>
    eventually(
      `record ${requestId}`,
      async () =>
        (
          await gateway.deps.db.query<{ status: number; outcome: string; error_class: string | null; cost_credits: number }>(
            'SELECT status, outcome, error_class, cost_credits FROM request_records WHERE request_id = $1 AND NOT provisional',
            [requestId],
          )
        ).rows[0],
      (row) => row !== undefined,
    );

  const cases = (['messages', 'chat', 'responses', 'generate-content'] as const).flatMap((caller) =>
    TARGETS.map((target) => [caller, target.id] as const),
  );

  it.each(cases)("%s caller, %s upstream: refused in the caller's words, nothing billed", async (caller, model) => {
    await expectNothingCharged(
      gateway,
      async () => {
        for (const stream of [false, true]) {
          const answer = await call(gateway, key, caller, model, stream);
          expectCallerOverflow(caller, answer, stream);
          // Logged as the upstream's refusal of the caller's request, whichever form it took.
          expect(await record(answer.requestId)).toMatchObject({
            status: answer.status,
            outcome: 'error',
            error_class: 'upstream_invalid_request',
            cost_credits: 0,
          });
        }
      },
      async () => {
        // The same call with a prompt that fits is charged.
        expect((await call(gateway, key, caller, model, false, 'Hello')).status).toBe(200);
      },
    );
  });

  it("the simulator refuses in each provider's own words and status", async () => {
    const post = async (path: string, headers: Record<string, string>, body: unknown) => {
      const response = await fetch(gateway.sim.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as any };
    };
    const anthropic = await post(
      '/v1/messages',
      { 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' },
      { model: 'sim-small-context', max_tokens: 16, messages: [{ role: 'user', content: LONG }] },
    );
    expect(anthropic.status).toBe(400);
    expect(anthropic.json.error.message).toMatch(/^prompt is too long: \d+ tokens > 8192 maximum$/);
    const google = await post(
      '/v1beta/models/sim-small-context:generateContent',
      { 'x-goog-api-key': 'sim-key' },
      { contents: [{ role: 'user', parts: [{ text: LONG }] }] },
    );
    expect(google.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const openai = await post('/v1/responses', { authorization: 'Bearer sim-key' }, { model: 'sim-small-context', input: LONG });
    expect(openai.status).toBe(400);
    expect(openai.json.error).toMatchObject({ code: 'context_length_exceeded', param: 'input', message: RESPONSES_OVERFLOW });
    // Streamed, OpenAI refuses inside the stream; Chat streams keep the 400.
    const streamed = await fetch(`${gateway.sim.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
      body: JSON.stringify({ model: 'sim-small-context', input: LONG, stream: true }),
    });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await streamed.text();
    expectStreamedResponsesOverflow({ status: streamed.status, text });
    expect((ssePayloads(text) as Array<{ type: string }>).map((event) => event.type)).toEqual([
      'response.created',
      'error',
      'response.failed',
    ]);
    const chat = await post(
      '/v1/chat/completions',
      { authorization: 'Bearer sim-key' },
      { model: 'sim-small-context', stream: true, messages: [{ role: 'user', content: LONG }] },
    );
    expect(chat.status).toBe(400);
    expect(chat.json.error.code).toBe('context_length_exceeded');
    // A short prompt on the same model is answered.
    const short = await post(
      '/v1/chat/completions',
      { authorization: 'Bearer sim-key' },
      { model: 'sim-small-context', messages: [{ role: 'user', content: 'hi' }] },
    );
    expect(short.status).toBe(200);
  });
});
