/**
 * Issue 9, calibration: the provider simulator must answer like the real APIs, or every test that
 * runs against it can pass on a misunderstanding. For each protocol and each core scenario (text,
 * tool call, reasoning; streamed and not), the simulator's answer (in process, on a loopback port)
 * has the same event-type sequence and the same field set (key paths of each event type, values
 * aside) as the recorded provider answer of that scenario. Differences that come from a feature
 * the scenario did not ask for, or from a vendor's own extras, are listed per scenario with the
 * reason; anything else is a simulator bug.
 */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import type { Protocol } from '../../src/ir/protocol';
import { bodyCaptures, capturesPresent, streamCaptures } from '../support/capture-files';
import { bodyShape, compareShapes, ssePayloads, streamShape, type WireShape } from '../support/capture-shape';

const KEY = 'sim-key';
const HEADERS: Record<Protocol, Record<string, string>> = {
  messages: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
  responses: { authorization: `Bearer ${KEY}` },
  chat: { authorization: `Bearer ${KEY}` },
  'generate-content': { 'x-goog-api-key': KEY },
};

const WEATHER = {
  name: 'weather',
  description: 'The weather at a location',
  schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false },
};

interface Scenario {
  protocol: Protocol;
  scenario: 'text' | 'tool call' | 'reasoning';
  stream: boolean;
  /** The recorded answer of the same scenario (`<folder>/<file>`, `#n` for one stream of a file). */
  capture: string;
  path: string;
  body: Record<string, unknown>;
  /** Key paths (and everything under them) left out of the comparison, each with the reason. */
  outOfScope?: Record<string, string>;
  /** A documented sequence difference (a vendor's own chunk layout), pinned on both sides. */
  knownSequence?: { capture: string[]; simulator: string[]; reason: string };
}

type Extras = Pick<Scenario, 'outOfScope' | 'knownSequence'>;

function messagesScenario(scenario: Scenario['scenario'], stream: boolean, capture: string, extras: Extras = {}): Scenario {
  const body: Record<string, unknown> = {
    model: 'claude-sonnet-4-5',
    max_tokens: 2048,
    stream,
    messages: [{ role: 'user', content: 'Hello' }],
  };
  if (scenario === 'tool call') {
    body.tools = [
      {
        name: 'json',
        description: 'Respond with a JSON object.',
        input_schema: { type: 'object', properties: { elements: { type: 'array', items: { type: 'string' } } } },
      },
    ];
    body.tool_choice = { type: 'tool', name: 'json' };
  }
  if (scenario === 'reasoning') body.thinking = { type: 'enabled', budget_tokens: 1024 };
  return { protocol: 'messages', scenario, stream, capture, path: '/v1/messages', body, ...extras };
}

function responsesScenario(scenario: Scenario['scenario'], stream: boolean, capture: string, extras: Extras = {}): Scenario {
  const body: Record<string, unknown> = { model: scenario === 'reasoning' ? 'gpt-5' : 'gpt-4.1', stream, input: 'Hello' };
  if (scenario !== 'text')
    body.tools = [{ type: 'function', name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema, strict: true }];
  // The recorded reasoning stream is a tool loop's first step; its recorded body answered in text.
  if (scenario === 'tool call' || (scenario === 'reasoning' && stream)) body.input = 'Call weather for San Francisco';
  if (scenario === 'reasoning') {
    body.reasoning = { effort: 'low', summary: 'auto' };
    body.include = ['reasoning.encrypted_content'];
    body.store = false;
  }
  return { protocol: 'responses', scenario, stream, capture, path: '/v1/responses', body, ...extras };
}

function chatScenario(scenario: Scenario['scenario'], stream: boolean, capture: string, extras: Extras = {}): Scenario {
  const body: Record<string, unknown> = {
    model: scenario === 'text' ? 'gpt-4.1' : 'deepseek-v3.2',
    stream,
    messages: [{ role: 'user', content: 'Hello' }],
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
  if (scenario !== 'text') body.thinking = { type: 'enabled' };
  if (scenario === 'tool call') {
    body.tools = [{ type: 'function', function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema } }];
    body.messages = [{ role: 'user', content: 'Call weather for San Francisco' }];
  }
  return { protocol: 'chat', scenario, stream, capture, path: '/v1/chat/completions', body, ...extras };
}

function generateContentScenario(scenario: Scenario['scenario'], stream: boolean, capture: string, extras: Extras = {}): Scenario {
  const model = 'sim-g3-pro';
  const body: Record<string, unknown> = { contents: [{ role: 'user', parts: [{ text: 'How many r are in strawberry?' }] }] };
  if (scenario === 'tool call') {
    body.tools = [
      {
        functionDeclarations: [
          {
            name: WEATHER.name,
            description: WEATHER.description,
            parameters: { type: 'OBJECT', properties: { location: { type: 'STRING' } } },
          },
        ],
      },
    ];
    body.contents = [{ role: 'user', parts: [{ text: 'Call weather for San Francisco' }] }];
  }
  if (scenario === 'reasoning') body.generationConfig = { thinkingConfig: { thinkingBudget: 1024 } };
  const path = `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
  return { protocol: 'generate-content', scenario, stream, capture, path, body, ...extras };
}

/** Fields of the recordings that are not part of the answer's protocol shape, with the reason. */
const OLDER_MESSAGES_RECORDING = {
  stop_sequence: 'absent from this older recording only; anthropic-text.* and anthropic-clear-thinking.* have it',
  'usage.inference_geo': 'added to the API after this recording; anthropic-text.* have it',
  'message.usage.inference_geo': 'added to the API after this recording; anthropic-text.* have it',
};
const CONTEXT_MANAGEMENT = {
  context_management: 'the context-management beta (clear_thinking edits) the recorded request enabled; the scenario does not',
};
/** Fields OpenAI's OpenAPI document requires that these recordings predate (test/fixtures/openai-openapi). */
const OPENAI_SCHEMA_REQUIRED = {
  'usage.input_tokens_details.cache_write_tokens': "required by OpenAI's schema (ResponseUsage), added after these recordings",
  'response.usage.input_tokens_details.cache_write_tokens': "required by OpenAI's schema (ResponseUsage), added after these recordings",
  name: "response.function_call_arguments.done: required by OpenAI's schema, absent from the Azure recording",
};
const AZURE_FILTERS = {
  content_filters: "Azure OpenAI's content-filter annotations, a vendor extra",
  'response.content_filters': "Azure OpenAI's content-filter annotations, a vendor extra",
  ...OPENAI_SCHEMA_REQUIRED,
};
const OPENAI_RESPONSES_METADATA = {
  ...OPENAI_SCHEMA_REQUIRED,
  billing: 'account billing metadata (`payer`) of newer OpenAI answers, not part of the answer; Azure sends none',
  completed_at: 'added to the API after this recording (azure-text.1, recorded later, has it)',
  'response.completed_at': 'added to the API after this recording (azure-text.1, recorded later, has it)',
};
/** DeepSeek's own Chat fields, and the OpenAI fields the simulator writes for every Chat vendor. */
const DEEPSEEK_VENDOR = {
  'usage.prompt_cache_hit_tokens': "DeepSeek's own cache counters (the decoder reads them; replay.test.ts)",
  'usage.prompt_cache_miss_tokens': "DeepSeek's own cache counters",
  'choices[].message.tool_calls[].index': 'DeepSeek repeats the stream index inside a complete message',
  'choices[].delta.refusal': 'OpenAI field; DeepSeek does not send it',
  'choices[].message.refusal': 'OpenAI field; DeepSeek does not send it',
  'choices[].message.annotations': 'OpenAI field; DeepSeek does not send it',
  obfuscation: 'OpenAI stream padding; DeepSeek does not send it',
  service_tier: 'OpenAI field; DeepSeek does not send it',
  'usage.completion_tokens_details.accepted_prediction_tokens': 'OpenAI predicted-outputs counter',
  'usage.completion_tokens_details.rejected_prediction_tokens': 'OpenAI predicted-outputs counter',
  'usage.completion_tokens_details.audio_tokens': 'OpenAI audio counter',
  'usage.prompt_tokens_details.audio_tokens': 'OpenAI audio counter',
};
const DEEPSEEK_USAGE_ON_FINISH =
  "DeepSeek always sends the usage on the finish chunk; OpenAI (and the simulator, which speaks OpenAI's layout for every Chat " +
  'vendor) sends it in a chunk of its own after the finish when include_usage is set. The decoders take both (replay.test.ts)';

const SCENARIOS: Scenario[] = [
  messagesScenario('text', true, 'messages/anthropic-text.chunks.txt'),
  messagesScenario('text', false, 'messages/anthropic-text.json'),
  messagesScenario('tool call', true, 'messages/anthropic-json-tool.1.chunks.txt', { outOfScope: OLDER_MESSAGES_RECORDING }),
  messagesScenario('tool call', false, 'messages/anthropic-json-tool.1.json', { outOfScope: OLDER_MESSAGES_RECORDING }),
  messagesScenario('reasoning', true, 'messages/anthropic-clear-thinking.1.chunks.txt', { outOfScope: CONTEXT_MANAGEMENT }),
  messagesScenario('reasoning', false, 'messages/anthropic-clear-thinking.1.json', { outOfScope: CONTEXT_MANAGEMENT }),
  responsesScenario('text', true, 'responses/azure-text.1.chunks.txt', { outOfScope: AZURE_FILTERS }),
  responsesScenario('text', false, 'responses/azure-text.1.json', { outOfScope: AZURE_FILTERS }),
  responsesScenario('tool call', true, 'responses/azure-tool-call.1.chunks.txt', { outOfScope: AZURE_FILTERS }),
  responsesScenario('tool call', false, 'responses/azure-tool-call.1.json', { outOfScope: AZURE_FILTERS }),
  responsesScenario('reasoning', true, 'responses/openai-reasoning-encrypted-content.1.chunks.txt#0', {
    outOfScope: OPENAI_RESPONSES_METADATA,
  }),
  responsesScenario('reasoning', false, 'responses/openai-reasoning-encrypted-content.1.json', { outOfScope: OPENAI_RESPONSES_METADATA }),
  chatScenario('text', true, 'chat/openai-text.chunks.txt'),
  chatScenario('text', false, 'chat/openai-text.json'),
  chatScenario('tool call', true, 'chat/deepseek-tool-call.chunks.txt', {
    outOfScope: DEEPSEEK_VENDOR,
    knownSequence: {
      capture: ['role', 'reasoning', 'tool_call', 'tool_arguments', 'finish+usage'],
      simulator: ['role', 'reasoning', 'tool_call', 'tool_arguments', 'finish', 'usage'],
      reason: DEEPSEEK_USAGE_ON_FINISH,
    },
  }),
  chatScenario('tool call', false, 'chat/deepseek-tool-call.json', { outOfScope: DEEPSEEK_VENDOR }),
  chatScenario('reasoning', true, 'chat/deepseek-reasoning.chunks.txt', {
    outOfScope: DEEPSEEK_VENDOR,
    knownSequence: {
      capture: ['role', 'reasoning', 'content', 'finish+usage'],
      simulator: ['role', 'reasoning', 'content', 'finish', 'usage'],
      reason: DEEPSEEK_USAGE_ON_FINISH,
    },
  }),
  chatScenario('reasoning', false, 'chat/deepseek-reasoning.json', { outOfScope: DEEPSEEK_VENDOR }),
  generateContentScenario('text', true, 'generate-content/google-text.chunks.txt'),
  generateContentScenario('text', false, 'generate-content/google-text.json'),
  generateContentScenario('tool call', true, 'generate-content/google-tool-call.chunks.txt'),
  generateContentScenario('tool call', false, 'generate-content/google-tool-call.json'),
  generateContentScenario('reasoning', true, 'generate-content/google-reasoning.chunks.txt'),
  generateContentScenario('reasoning', false, 'generate-content/google-reasoning.json'),
];

function captureShape(scenario: Scenario): WireShape {
  if (scenario.stream) {
    const capture = streamCaptures(scenario.protocol).find(
      (candidate) => candidate.label === scenario.capture || `${candidate.label}#0` === scenario.capture,
    );
    if (capture === undefined) throw new Error(`capture ${scenario.capture} is missing`);
    return streamShape(
      scenario.protocol,
      capture.lines.map((line) => JSON.parse(line) as unknown),
    );
  }
  const capture = bodyCaptures(scenario.protocol).find((candidate) => candidate.label === scenario.capture);
  if (capture === undefined) throw new Error(`capture ${scenario.capture} is missing`);
  return bodyShape(scenario.protocol, capture.body);
}

if (!capturesPresent('simulator calibration suite')) {
  describe.skip('simulator calibration (../shared/captures absent)', () => {
    it('needs the captures', () => undefined);
  });
} else {
  describe('simulator calibration against the captures', () => {
    let sim: Simulator;
    beforeAll(async () => {
      sim = await startSimulator({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await sim.close();
    });

    it.each(
      SCENARIOS.map(
        (scenario) =>
          [scenario.protocol, scenario.scenario, scenario.stream ? 'streamed' : 'not streamed', scenario.capture, scenario] as const,
      ),
    )('%s %s (%s) has the shape of %s', async (_protocol, _name, _mode, _capture, scenario) => {
      const answer = await fetch(sim.url + scenario.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...HEADERS[scenario.protocol] },
        body: JSON.stringify(scenario.body),
      });
      const text = await answer.text();
      expect({ status: answer.status, body: answer.status === 200 ? 'ok' : text }).toEqual({ status: 200, body: 'ok' });
      const simulated = scenario.stream
        ? streamShape(scenario.protocol, ssePayloads(text))
        : bodyShape(scenario.protocol, JSON.parse(text) as unknown);
      const difference = compareShapes(captureShape(scenario), simulated, new Set(Object.keys(scenario.outOfScope ?? {})));
      if (scenario.knownSequence !== undefined) {
        // Pinned on both sides: a change on either is a new difference to look at.
        const { reason, ...sides } = scenario.knownSequence;
        expect(reason).not.toBe('');
        expect(difference.sequence).toEqual(sides);
        delete difference.sequence;
      }
      expect(difference).toEqual({ fields: {} });
    });
  });
}
