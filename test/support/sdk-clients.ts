/**
 * One adapter per protocol over the official SDKs, so end-to-end tests can run the same scenario
 * (text, stream, tool round trip) through every protocol and compare what the SDK parsed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content } from '@google/genai';
import OpenAI from 'openai';
import type { Protocol } from '../../src/ir/protocol';

export interface SdkAnswer {
  text: string;
  /** The protocol's own stop/finish value. */
  stop: string;
  toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  inputTokens: number;
  outputTokens: number;
}

export interface SdkClient {
  protocol: Protocol;
  text(model: string, prompt: string, options?: { maxTokens?: number }): Promise<SdkAnswer>;
  stream(model: string, prompt: string): Promise<SdkAnswer>;
  /** Offers `get_weather`, expects a call, sends `result` back, returns both answers. */
  toolRoundTrip(model: string, result: string, options?: { stream?: boolean }): Promise<{ first: SdkAnswer; second: SdkAnswer }>;
}

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
};
const TOOL_PROMPT = 'Please call get_weather for Paris';

/** The stop value each protocol uses for a finished answer and for a tool call. */
export const STOPS: Record<Protocol, { end: string; tool: string }> = {
  messages: { end: 'end_turn', tool: 'tool_use' },
  chat: { end: 'stop', tool: 'tool_calls' },
  responses: { end: 'completed', tool: 'completed' },
  'generate-content': { end: 'STOP', tool: 'STOP' },
};

export function messagesClient(baseURL: string, apiKey: string): SdkClient {
  const client = new Anthropic({ apiKey, baseURL, maxRetries: 0 });
  const toAnswer = (message: Anthropic.Message): SdkAnswer => ({
    text: message.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join(''),
    stop: message.stop_reason ?? '',
    toolCalls: message.content
      .filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
      .map((b) => ({ id: b.id, name: b.name, arguments: b.input as Record<string, unknown> })),
    inputTokens:
      message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0),
    outputTokens: message.usage.output_tokens,
  });
  const tools: Anthropic.Tool[] = [
    { name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema },
  ];
  return {
    protocol: 'messages',
    async text(model, prompt, options) {
      return toAnswer(
        await client.messages.create({ model, max_tokens: options?.maxTokens ?? 256, messages: [{ role: 'user', content: prompt }] }),
      );
    },
    async stream(model, prompt) {
      return toAnswer(
        await client.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: prompt }] }).finalMessage(),
      );
    },
    async toolRoundTrip(model, result, options) {
      const call = async (messages: Anthropic.MessageParam[]) =>
        options?.stream
          ? client.messages.stream({ model, max_tokens: 256, tools, messages }).finalMessage()
          : client.messages.create({ model, max_tokens: 256, tools, messages });
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: TOOL_PROMPT }];
      const firstMessage = await call(messages);
      const first = toAnswer(firstMessage);
      messages.push({ role: 'assistant', content: firstMessage.content });
      messages.push({
        role: 'user',
        content: first.toolCalls.map((c) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: result })),
      });
      return { first, second: toAnswer(await call(messages)) };
    },
  };
}

export function chatClient(baseURL: string, apiKey: string): SdkClient {
  const client = new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const toAnswer = (completion: OpenAI.ChatCompletion): SdkAnswer => {
    const choice = completion.choices[0];
    return {
      text: choice.message.content ?? '',
      stop: choice.finish_reason,
      toolCalls: (choice.message.tool_calls ?? [])
        .filter((c) => c.type === 'function')
        .map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) as Record<string, unknown> })),
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    };
  };
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA } },
  ];
  return {
    protocol: 'chat',
    async text(model, prompt, options) {
      return toAnswer(
        await client.chat.completions.create({ model, max_tokens: options?.maxTokens, messages: [{ role: 'user', content: prompt }] }),
      );
    },
    async stream(model, prompt) {
      const stream = client.chat.completions.stream({
        model,
        messages: [{ role: 'user', content: prompt }],
        stream_options: { include_usage: true },
      });
      return toAnswer(await stream.finalChatCompletion());
    },
    async toolRoundTrip(model, result, options) {
      const call = async (messages: OpenAI.ChatCompletionMessageParam[]) =>
        options?.stream
          ? client.chat.completions.stream({ model, tools, messages, stream_options: { include_usage: true } }).finalChatCompletion()
          : client.chat.completions.create({ model, tools, messages });
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: TOOL_PROMPT }];
      const firstCompletion = await call(messages);
      const first = toAnswer(firstCompletion);
      messages.push(firstCompletion.choices[0].message as OpenAI.ChatCompletionMessageParam);
      for (const c of first.toolCalls) messages.push({ role: 'tool', tool_call_id: c.id, content: result });
      return { first, second: toAnswer(await call(messages)) };
    },
  };
}

export function responsesClient(baseURL: string, apiKey: string): SdkClient {
  const client = new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  // `output_text` is a convenience the SDK sets on create() only; read the message items instead.
  const outputText = (response: OpenAI.Responses.Response): string =>
    response.output
      .flatMap((item) => (item.type === 'message' ? item.content : []))
      .map((part) => (part.type === 'output_text' ? part.text : ''))
      .join('');
  const toAnswer = (response: OpenAI.Responses.Response): SdkAnswer => ({
    text: outputText(response),
    stop: response.status ?? '',
    toolCalls: response.output
      .filter((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call')
      .map((i) => ({ id: i.call_id, name: i.name, arguments: JSON.parse(i.arguments) as Record<string, unknown> })),
    inputTokens: response.usage?.input_tokens ?? 0,
    outputTokens: response.usage?.output_tokens ?? 0,
  });
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA, strict: false },
  ];
  return {
    protocol: 'responses',
    async text(model, prompt, options) {
      return toAnswer(await client.responses.create({ model, input: prompt, max_output_tokens: options?.maxTokens }));
    },
    async stream(model, prompt) {
      return toAnswer(await client.responses.stream({ model, input: prompt }).finalResponse());
    },
    async toolRoundTrip(model, result, options) {
      const call = async (input: OpenAI.Responses.ResponseInput) =>
        options?.stream
          ? client.responses.stream({ model, tools, input }).finalResponse()
          : client.responses.create({ model, tools, input });
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: TOOL_PROMPT }];
      const firstResponse = await call(input);
      const first = toAnswer(firstResponse);
      for (const item of firstResponse.output) if (item.type === 'function_call') input.push(item);
      for (const c of first.toolCalls) input.push({ type: 'function_call_output', call_id: c.id, output: result });
      return { first, second: toAnswer(await call(input)) };
    },
  };
}

export function generateContentClient(baseURL: string, apiKey: string): SdkClient {
  const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: baseURL, apiVersion: 'v1beta' } });
  type Gc = Awaited<ReturnType<typeof ai.models.generateContent>>;
  const toAnswer = (response: Gc, text?: string): SdkAnswer => ({
    text: text ?? response.text ?? '',
    stop: String(response.candidates?.[0]?.finishReason ?? ''),
    toolCalls: (response.functionCalls ?? []).map((c) => ({
      id: c.id ?? '',
      name: c.name ?? '',
      arguments: (c.args ?? {}) as Record<string, unknown>,
    })),
    inputTokens: response.usageMetadata?.promptTokenCount ?? 0,
    outputTokens: (response.usageMetadata?.candidatesTokenCount ?? 0) + (response.usageMetadata?.thoughtsTokenCount ?? 0),
  });
  const tools = [
    { functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parametersJsonSchema: WEATHER_SCHEMA }] },
  ];
  /** The model's function-call parts as sent, thought signatures included: what a turn must replay (gemini-3). */
  const callParts = (response: Gc) => (response.candidates?.[0]?.content?.parts ?? []).filter((part) => part.functionCall !== undefined);
  let lastCallParts: ReturnType<typeof callParts> = [];
  const streamToAnswer = async (stream: AsyncGenerator<Gc>): Promise<SdkAnswer> => {
    let text = '';
    let last: Gc | undefined;
    const calls: SdkAnswer['toolCalls'] = [];
    lastCallParts = [];
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      calls.push(...toAnswer(chunk).toolCalls);
      lastCallParts.push(...callParts(chunk));
      last = chunk;
    }
    if (!last) throw new Error('empty stream');
    return { ...toAnswer(last, text), toolCalls: calls };
  };
  return {
    protocol: 'generate-content',
    async text(model, prompt, options) {
      return toAnswer(await ai.models.generateContent({ model, contents: prompt, config: { maxOutputTokens: options?.maxTokens } }));
    },
    async stream(model, prompt) {
      return streamToAnswer(await ai.models.generateContentStream({ model, contents: prompt }));
    },
    async toolRoundTrip(model, result, options) {
      const contents: Content[] = [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }];
      const call = async () =>
        options?.stream
          ? streamToAnswer(await ai.models.generateContentStream({ model, contents, config: { tools } }))
          : ai.models.generateContent({ model, contents, config: { tools } }).then((response) => {
              lastCallParts = callParts(response);
              return toAnswer(response);
            });
      const first = await call();
      contents.push({ role: 'model', parts: lastCallParts });
      contents.push({
        role: 'user',
        parts: first.toolCalls.map((c) => ({ functionResponse: { id: c.id || undefined, name: c.name, response: { result } } })),
      });
      return { first, second: await call() };
    },
  };
}

export function sdkClient(protocol: Protocol, baseURL: string, apiKey: string): SdkClient {
  switch (protocol) {
    case 'messages':
      return messagesClient(baseURL, apiKey);
    case 'chat':
      return chatClient(baseURL, apiKey);
    case 'responses':
      return responsesClient(baseURL, apiKey);
    case 'generate-content':
      return generateContentClient(baseURL, apiKey);
  }
}
