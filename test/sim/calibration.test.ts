/**
 * The simulator's shapes against real provider captures (`../shared/captures`): the same event
 * sequences and the same field sets, beyond ids and text. Skipped, saying so, when the captures
 * are absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { ANTHROPIC_HEADERS, GOOGLE_HEADERS, OPENAI_HEADERS, parseSse, post } from './sim-support';

const CAPTURES = path.resolve(__dirname, '../../../shared/captures');
const present = existsSync(CAPTURES);
if (!present) process.stderr.write(`calibration skipped: no captures at ${CAPTURES}\n`);
const describeIfCaptures = present ? describe : describe.skip;

type Json = Record<string, unknown>;

function capture(file: string): Json {
  return JSON.parse(readFileSync(path.join(CAPTURES, file), 'utf8')) as Json;
}

function captureLines(file: string): Json[] {
  return readFileSync(path.join(CAPTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);
}

function keys(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value).sort() : [];
}

/** Event types with runs of the same type collapsed, so the number of deltas does not matter. */
function collapse(types: string[]): string[] {
  return types.filter((type, index) => index === 0 || type !== types[index - 1]);
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

describeIfCaptures('Messages', () => {
  const body = {
    model: 'claude-haiku-4-5',
    max_tokens: 200,
    messages: [{ role: 'user', content: 'Hello, how are you doing today my friend?' }],
  };

  it('matches anthropic-text.json', async () => {
    const real = capture('messages/anthropic-text.json');
    const ours = (await post(sim, '/v1/messages', body, ANTHROPIC_HEADERS)).json as Json;
    expect(keys(ours)).toEqual(keys(real));
    expect(keys(ours.usage)).toEqual(keys(real.usage));
    expect(keys((ours.content as Json[])[0])).toEqual(keys((real.content as Json[])[0]));
  });

  it('matches anthropic-text.chunks.txt', async () => {
    const real = captureLines('messages/anthropic-text.chunks.txt');
    const ours = parseSse((await post(sim, '/v1/messages', { ...body, stream: true }, ANTHROPIC_HEADERS)).text).map(
      (event) => JSON.parse(event.data) as Json,
    );
    expect(collapse(ours.map((event) => String(event.type)))).toEqual(collapse(real.map((event) => String(event.type))));
    for (const type of [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]) {
      const mine = ours.find((event) => event.type === type)!;
      const theirs = real.find((event) => event.type === type)!;
      expect([type, keys(mine)]).toEqual([type, keys(theirs)]);
    }
    const start = (event: Json[]): Json => event.find((entry) => entry.type === 'message_start')!.message as Json;
    expect(keys(start(ours))).toEqual(keys(start(real)));
    expect(keys(start(ours).usage)).toEqual(keys(start(real).usage));
    const delta = (events: Json[]): Json => events.find((entry) => entry.type === 'message_delta')!;
    expect(keys(delta(ours).usage)).toEqual(keys(delta(real).usage));
    expect(keys(delta(ours).delta)).toEqual(keys(delta(real).delta));
  });

  it('matches the thinking stream of anthropic-clear-thinking.1.chunks.txt', async () => {
    const real = captureLines('messages/anthropic-clear-thinking.1.chunks.txt');
    const ours = parseSse(
      (
        await post(
          sim,
          '/v1/messages',
          { ...body, max_tokens: 3000, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } },
          ANTHROPIC_HEADERS,
        )
      ).text,
    ).map((event) => JSON.parse(event.data) as Json);
    const shape = (events: Json[]): string[] =>
      collapse(events.map((event) => `${String(event.type)}${isDelta(event) ? `:${String((event.delta as Json).type)}` : ''}`));
    expect(shape(ours)).toEqual(shape(real));
  });

  it('matches the tool stream of anthropic-json-tool.1.chunks.txt', async () => {
    const real = captureLines('messages/anthropic-json-tool.1.chunks.txt');
    const tool = {
      name: 'json',
      input_schema: { type: 'object', properties: { elements: { type: 'array', items: { type: 'string' } } }, required: ['elements'] },
    };
    const ours = parseSse(
      (
        await post(
          sim,
          '/v1/messages',
          { ...body, stream: true, tools: [tool], tool_choice: { type: 'tool', name: 'json' } },
          ANTHROPIC_HEADERS,
        )
      ).text,
    ).map((event) => JSON.parse(event.data) as Json);
    // The capture's ping falls between two deltas; the API places pings freely.
    const shape = (events: Json[]): string[] =>
      collapse(events.filter((event) => event.type !== 'ping').map((event) => String(event.type)));
    expect(shape(ours)).toEqual(shape(real));
    const blockStart = (events: Json[]): Json => events.find((event) => event.type === 'content_block_start')!.content_block as Json;
    expect(keys(blockStart(ours))).toEqual(keys(blockStart(real)));
  });
});

function isDelta(event: Json): boolean {
  return event.type === 'content_block_delta';
}

describeIfCaptures('Chat Completions', () => {
  const body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Invent a holiday and describe it in detail please.' }] };

  it('matches openai-text.json', async () => {
    const real = capture('chat/openai-text.json');
    const ours = (await post(sim, '/v1/chat/completions', body, OPENAI_HEADERS)).json as Json;
    expect(keys(ours)).toEqual(keys(real));
    const choice = (value: Json): Json => (value.choices as Json[])[0]!;
    expect(keys(choice(ours))).toEqual(keys(choice(real)));
    expect(keys(choice(ours).message)).toEqual(keys(choice(real).message));
    expect(keys(ours.usage)).toEqual(keys(real.usage));
    const usage = (value: Json): Json => value.usage as Json;
    expect(keys(usage(ours).prompt_tokens_details)).toEqual(keys(usage(real).prompt_tokens_details));
    expect(keys(usage(ours).completion_tokens_details)).toEqual(keys(usage(real).completion_tokens_details));
  });

  it('matches openai-text.chunks.txt (with include_usage)', async () => {
    const real = captureLines('chat/openai-text.chunks.txt');
    const frames = parseSse(
      (await post(sim, '/v1/chat/completions', { ...body, stream: true, stream_options: { include_usage: true } }, OPENAI_HEADERS)).text,
    );
    expect(frames[frames.length - 1]!.data).toBe('[DONE]');
    const ours = frames.slice(0, -1).map((frame) => JSON.parse(frame.data) as Json);
    const at = (events: Json[], index: number): Json => events[index < 0 ? events.length + index : index]!;
    for (const index of [0, 1, -2, -1]) {
      expect([index, keys(at(ours, index))]).toEqual([index, keys(at(real, index))]);
      const choice = (at(ours, index).choices as Json[])[0];
      const realChoice = (at(real, index).choices as Json[])[0];
      expect([index, keys(choice)]).toEqual([index, keys(realChoice)]);
      if (choice !== undefined) expect([index, keys(choice.delta)]).toEqual([index, keys(realChoice!.delta)]);
    }
    expect(keys(at(ours, -1).usage)).toEqual(keys(at(real, -1).usage));
  });
});

describeIfCaptures('Responses', () => {
  const body = { model: 'gpt-5', input: 'Say one word.' };
  const azureOnly = (fields: string[]): string[] => fields.filter((field) => field !== 'content_filters');

  it('matches azure-text.1.json', async () => {
    const real = capture('responses/azure-text.1.json');
    const ours = (await post(sim, '/v1/responses', body, OPENAI_HEADERS)).json as Json;
    expect(keys(ours)).toEqual(azureOnly(keys(real)));
    const output = (value: Json): Json => (value.output as Json[])[0]!;
    expect(keys(output(ours))).toEqual(keys(output(real)));
    expect(keys((output(ours).content as Json[])[0])).toEqual(keys((output(real).content as Json[])[0]));
    expect(keys(ours.usage)).toEqual(keys(real.usage));
  });

  it.each([
    ['azure-text.1.chunks.txt', body],
    [
      'azure-tool-call.1.chunks.txt',
      {
        ...body,
        input: 'weather',
        tools: [
          {
            type: 'function',
            name: 'weather',
            parameters: {
              type: 'object',
              properties: { location: { type: 'string' } },
              required: ['location'],
              additionalProperties: false,
            },
            strict: true,
          },
        ],
      },
    ],
  ])('matches %s', async (file, request) => {
    const real = captureLines(`responses/${file}`);
    const ours = parseSse((await post(sim, '/v1/responses', { ...request, stream: true }, OPENAI_HEADERS)).text).map(
      (event) => JSON.parse(event.data) as Json,
    );
    expect(collapse(ours.map((event) => String(event.type)))).toEqual(collapse(real.map((event) => String(event.type))));
    for (const event of real) {
      const mine = ours.find((entry) => entry.type === event.type)!;
      // OpenAI's reference and schema give this event the function's `name`; the Azure capture has none.
      const expected = event.type === 'response.function_call_arguments.done' ? [...keys(event), 'name'].sort() : keys(event);
      expect([event.type, keys(mine)]).toEqual([event.type, expected]);
      if (event.item !== undefined) expect([event.type, keys(mine.item)]).toEqual([event.type, keys(event.item)]);
      if (event.response !== undefined) expect([event.type, keys(mine.response)]).toEqual([event.type, azureOnly(keys(event.response))]);
    }
  });

  it('matches the reasoning item of openai-reasoning-encrypted-content.1.json', async () => {
    const real = capture('responses/openai-reasoning-encrypted-content.1.json');
    const ours = (
      await post(
        sim,
        '/v1/responses',
        { ...body, reasoning: { effort: 'high', summary: 'detailed' }, include: ['reasoning.encrypted_content'], store: false },
        OPENAI_HEADERS,
      )
    ).json as Json;
    const reasoning = (value: Json): Json => (value.output as Json[]).find((item) => item.type === 'reasoning')!;
    expect(keys(reasoning(ours))).toEqual(keys(reasoning(real)));
  });
});

describeIfCaptures('Generate-Content', () => {
  const body = { contents: [{ role: 'user', parts: [{ text: 'How many r are in strawberry?' }] }] };

  it('matches google-text.json (a thinking gemini-3 model)', async () => {
    const real = capture('generate-content/google-text.json');
    const ours = (await post(sim, '/v1beta/models/sim-g3-pro:generateContent', body, GOOGLE_HEADERS)).json as Json;
    expect(keys(ours)).toEqual(keys(real));
    const candidate = (value: Json): Json => (value.candidates as Json[])[0]!;
    expect(keys(candidate(ours))).toEqual(keys(candidate(real)));
    expect(keys(candidate(ours).content)).toEqual(keys(candidate(real).content));
    expect(keys(((candidate(ours).content as Json).parts as Json[])[0])).toEqual(
      keys(((candidate(real).content as Json).parts as Json[])[0]),
    );
    expect(keys(ours.usageMetadata)).toEqual(keys(real.usageMetadata));
  });

  it('matches google-text.chunks.txt', async () => {
    const real = captureLines('generate-content/google-text.chunks.txt');
    const ours = parseSse((await post(sim, '/v1beta/models/sim-g3-pro:streamGenerateContent?alt=sse', body, GOOGLE_HEADERS)).text).map(
      (event) => JSON.parse(event.data) as Json,
    );
    for (const [mine, theirs] of [
      [ours[0]!, real[0]!],
      [ours[ours.length - 1]!, real[real.length - 1]!],
    ] as const) {
      expect(keys(mine)).toEqual(keys(theirs));
      expect(keys((mine.candidates as Json[])[0])).toEqual(keys((theirs.candidates as Json[])[0]));
      expect(keys(mine.usageMetadata)).toEqual(keys(theirs.usageMetadata));
    }
  });

  it('matches google-tool-call.json', async () => {
    const real = capture('generate-content/google-tool-call.json');
    const tools = [
      {
        functionDeclarations: [
          { name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
        ],
      },
    ];
    const ours = (
      await post(
        sim,
        '/v1beta/models/sim-g3-pro:generateContent',
        { ...body, contents: [{ role: 'user', parts: [{ text: 'weather?' }] }], tools },
        GOOGLE_HEADERS,
      )
    ).json as Json;
    const part = (value: Json): Json => (((value.candidates as Json[])[0]!.content as Json).parts as Json[])[0]!;
    expect(keys(part(ours))).toEqual(keys(part(real)));
    expect(keys(part(ours).functionCall)).toEqual(keys(part(real).functionCall));
  });
});
