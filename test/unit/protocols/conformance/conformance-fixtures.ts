/**
 * Fixtures every codec of the conformance suite runs: for each protocol, client requests that
 * exercise its whole request surface, and answers (IR) it can express on the wire. They differ per
 * protocol only where the protocols differ (which opaque values and usage fields exist).
 */
import type { Protocol } from '../../../../src/ir/protocol';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import type { Usage } from '../../../../src/ir/usage';
import { PNG_BASE64 } from '../matrix/matrix-scenarios';

export interface RequestFixture {
  name: string;
  body: Record<string, unknown>;
  /** Generate-Content: the model and the method come from the URL. */
  path?: string;
}

const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

export const CLIENT_REQUESTS: Record<Protocol, RequestFixture[]> = {
  messages: [
    {
      name: 'system, tools, a tool round trip with an image, sampling',
      body: {
        model: 'client-model',
        max_tokens: 512,
        temperature: 0.5,
        top_p: 0.9,
        top_k: 20,
        stop_sequences: ['END'],
        system: [{ type: 'text', text: 'Be brief.' }],
        tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER_SCHEMA }],
        tool_choice: { type: 'auto' },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather in Paris?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
              { type: 'text', text: 'And tomorrow?' },
            ],
          },
        ],
      },
    },
    {
      name: 'thinking replayed with its signature, a forced-tool-free tool turn',
      body: {
        model: 'client-model',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER_SCHEMA }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'I should call the tool.', signature: 'EsiAsig' },
              { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'sunny' }] }] },
        ],
      },
    },
    {
      name: 'structured output and an image URL',
      body: {
        model: 'client-model',
        max_tokens: 256,
        output_config: { format: { type: 'json_schema', schema: WEATHER_SCHEMA } },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'url', url: 'https://images.example.com/cat.png' } },
              { type: 'text', text: 'As JSON' },
            ],
          },
        ],
      },
    },
  ],
  chat: [
    {
      name: 'system, tools, a tool round trip, sampling',
      body: {
        model: 'client-model',
        max_completion_tokens: 512,
        temperature: 1.5,
        top_p: 0.9,
        stop: ['END'],
        seed: 7,
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA } }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather in Paris?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            ],
          },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'user', content: 'And tomorrow?' },
        ],
      },
    },
    {
      name: 'reasoning effort, structured output and an image URL',
      body: {
        model: 'client-model',
        max_completion_tokens: 2048,
        reasoning_effort: 'high',
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'weather', schema: { ...WEATHER_SCHEMA, additionalProperties: false }, strict: true },
        },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'As JSON' },
              { type: 'image_url', image_url: { url: 'https://images.example.com/cat.png', detail: 'high' } },
            ],
          },
        ],
      },
    },
  ],
  responses: [
    {
      name: 'instructions, tools, a tool round trip with an image, sampling',
      body: {
        model: 'client-model',
        max_output_tokens: 512,
        temperature: 1.2,
        top_p: 0.9,
        instructions: 'Be brief.',
        tools: [{ type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA, strict: false }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        store: false,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Weather in Paris?' },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
            ],
          },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
          { role: 'user', content: 'And tomorrow?' },
        ],
      },
    },
    {
      name: 'reasoning replayed with encrypted content, structured output',
      body: {
        model: 'client-model',
        max_output_tokens: 2048,
        store: false,
        reasoning: { effort: 'high', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
        text: {
          format: { type: 'json_schema', name: 'weather', schema: { ...WEATHER_SCHEMA, additionalProperties: false }, strict: true },
        },
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'I should call the tool.' }], encrypted_content: 'gAAAABenc' },
          { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_2', output: 'sunny' },
        ],
      },
    },
  ],
  'generate-content': [
    {
      name: 'system, tools, a function round trip with an image, sampling',
      path: '/v1beta/models/client-model:generateContent',
      body: {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA }] }],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        generationConfig: { maxOutputTokens: 512, temperature: 1.5, topP: 0.9, topK: 20, stopSequences: ['END'] },
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris?' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }] },
          {
            role: 'model',
            parts: [
              { text: 'Checking.' },
              { functionCall: { id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CgSig' },
            ],
          },
          {
            role: 'user',
            parts: [{ functionResponse: { id: 'fc_1', name: 'get_weather', response: { result: 'sunny' } } }, { text: 'And tomorrow?' }],
          },
        ],
      },
    },
    {
      name: 'thinking with thoughts, structured output',
      path: '/v1beta/models/client-model:streamGenerateContent',
      body: {
        generationConfig: {
          maxOutputTokens: 4096,
          thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
          responseMimeType: 'application/json',
          responseSchema: WEATHER_SCHEMA,
        },
        contents: [{ role: 'user', parts: [{ text: 'As JSON' }] }],
      },
    },
  ],
};

const USAGE: Usage = { inputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 12, reasoningTokens: 0 };

/** What a protocol can carry of a usage record (Messages has cache writes, the OpenAI family reasoning tokens…). */
export const CACHED_USAGE: Record<Protocol, Usage> = {
  messages: { inputTokens: 40, cacheReadTokens: 1200, cacheWriteTokens: 300, outputTokens: 12, reasoningTokens: 0 },
  chat: { inputTokens: 40, cacheReadTokens: 1200, cacheWriteTokens: 0, outputTokens: 30, reasoningTokens: 18 },
  responses: { inputTokens: 40, cacheReadTokens: 1200, cacheWriteTokens: 0, outputTokens: 30, reasoningTokens: 18 },
  'generate-content': { inputTokens: 40, cacheReadTokens: 1200, cacheWriteTokens: 0, outputTokens: 30, reasoningTokens: 18 },
};

/** Reasoning as each protocol carries it natively (its own opaque values). */
function reasoningPart(protocol: Protocol): IrResponse['parts'][number] {
  switch (protocol) {
    case 'messages':
      return { type: 'reasoning', text: 'Let me think.', signature: { origin: 'messages', value: 'EsiAsig' } };
    case 'responses':
      return { type: 'reasoning', text: 'Let me think.', encrypted: { origin: 'responses', value: 'gAAAABenc' } };
    case 'chat':
      return { type: 'reasoning', text: 'Let me think.' };
    case 'generate-content':
      return { type: 'reasoning', text: 'Let me think.', signature: { origin: 'generate-content', value: 'CgSig' } };
  }
}

/** A tool call id the protocol itself would produce. */
export function callId(protocol: Protocol, n: number): string {
  switch (protocol) {
    case 'messages':
      return `toolu_0${n}`;
    case 'responses':
    case 'chat':
      return `call_${n}`;
    case 'generate-content':
      return `fc_${n}`;
  }
}

export function irAnswers(protocol: Protocol): Array<{ name: string; response: IrResponse }> {
  const base = { id: 'answer_1', model: 'upstream-model', created: 1_767_225_600 };
  return [
    {
      name: 'text',
      response: { ...base, parts: [{ type: 'text', text: 'Hello wörld 👋' }], finish: { unified: 'stop', raw: null }, usage: USAGE },
    },
    {
      name: 'reasoning, text and two parallel tool calls',
      response: {
        ...base,
        parts: [
          reasoningPart(protocol),
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_call', id: callId(protocol, 1), name: 'get_weather', argumentsJson: '{"city":"Paris"}' },
          { type: 'tool_call', id: callId(protocol, 2), name: 'get_time', argumentsJson: '{"zone":"CET"}' },
        ],
        finish: { unified: 'tool_calls', raw: null },
        usage: CACHED_USAGE[protocol],
      },
    },
    {
      name: 'cut by max tokens',
      response: { ...base, parts: [{ type: 'text', text: 'One two' }], finish: { unified: 'length', raw: null }, usage: USAGE },
    },
  ];
}

/** IR events of a multi-block answer: reasoning, text, then two tool calls, as a decoder emits them. */
export function multiBlockEvents(protocol: Protocol): IrStreamEvent[] {
  const reasoning = reasoningPart(protocol);
  const events: IrStreamEvent[] = [
    { type: 'start', id: 'answer_1', model: 'upstream-model', usage: { inputTokens: 40 } },
    { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
    { type: 'reasoning_delta', index: 0, text: 'Let me ' },
    { type: 'reasoning_delta', index: 0, text: 'think.' },
  ];
  if (reasoning.type === 'reasoning' && reasoning.signature)
    events.push({ type: 'reasoning_opaque', index: 0, field: 'signature', value: reasoning.signature });
  if (reasoning.type === 'reasoning' && reasoning.encrypted)
    events.push({ type: 'reasoning_opaque', index: 0, field: 'encrypted', value: reasoning.encrypted });
  events.push(
    { type: 'block_end', index: 0 },
    { type: 'block_start', index: 1, block: { kind: 'text' } },
    { type: 'text_delta', index: 1, text: 'Checking ' },
    { type: 'text_delta', index: 1, text: 'both.' },
    { type: 'block_end', index: 1 },
    { type: 'block_start', index: 2, block: { kind: 'tool_call', id: callId(protocol, 1), name: 'get_weather' } },
    { type: 'tool_args_delta', index: 2, json: '{"city":' },
    { type: 'tool_args_delta', index: 2, json: '"Paris"}' },
    { type: 'block_end', index: 2 },
    { type: 'block_start', index: 3, block: { kind: 'tool_call', id: callId(protocol, 2), name: 'get_time' } },
    { type: 'tool_args_delta', index: 3, json: '{"zone":"CET"}' },
    { type: 'block_end', index: 3 },
    // Usage after the finish, as Chat upstreams send it: the encoder must hold its final events.
    { type: 'finish', finish: { unified: 'tool_calls', raw: null } },
    { type: 'usage', usage: CACHED_USAGE[protocol] },
  );
  return events;
}
