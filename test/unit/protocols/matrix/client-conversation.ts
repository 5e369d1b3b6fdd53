/**
 * One conversation per client protocol, driven through that protocol's official SDK: the SDK builds
 * the wire request and parses the answer (its own stream accumulator when streaming), and the
 * conversation appends the assistant output to its history the way a real client does, so a second
 * turn replays exactly what the client received (ids, signatures, encrypted reasoning).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  FunctionCallingConfigMode,
  GoogleGenAI,
  type Content,
  type GenerateContentConfig,
  type GenerateContentResponse,
  type Part,
} from '@google/genai';
import type { Protocol } from '../../../../src/ir/protocol';

export type FakeFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ToolSpec {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export type ImageInput = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string; mediaType: string };

export interface ToolResultInput {
  text: string;
  image?: ImageInput;
}

export interface SendOptions {
  tools?: ToolSpec[];
  toolChoice?: 'auto' | 'required' | 'none' | { name: string };
  parallel?: boolean;
  maxTokens?: number;
  stop?: string[];
  reasoning?: boolean;
  json?: { name: string; schema: Record<string, unknown> };
  /** Messages: mark the system prompt with `cache_control` (the other protocols cache automatically). */
  cacheSystem?: boolean;
}

/** What a client saw, in comparable form. Usage: input includes cached, output includes reasoning. */
export interface ClientView {
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; args: unknown }>;
  /** The protocol's own stop value (`end_turn`, `stop`, `completed`, `STOP`…; Responses adds `:<reason>` when incomplete). */
  finish: string;
  usage: { input: number; cached: number; output: number; reasoning: number };
}

export interface ClientConversation {
  readonly protocol: Protocol;
  system(text: string): void;
  user(text: string, images?: ImageInput[]): void;
  /** Answers the tool calls of the last assistant output, in order. */
  toolResults(results: ToolResultInput[]): void;
  send(options?: SendOptions): Promise<ClientView>;
}

/** The model slug clients ask for (the catalog resolution is the relay's business, not the codecs'). */
export const CLIENT_MODEL = 'gateway-test-model';
const BASE = 'http://gateway.test';

function dataUrl(image: ImageInput): string {
  return image.kind === 'base64' ? `data:${image.mediaType};base64,${image.data}` : image.url;
}

function parseArgs(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return { unparsable: json };
  }
}

class MessagesConversation implements ClientConversation {
  readonly protocol = 'messages' as const;
  private readonly client: Anthropic;
  private readonly messages: Anthropic.MessageParam[] = [];
  private systemText: string | undefined;
  private lastCalls: Anthropic.ToolUseBlock[] = [];

  constructor(
    fetch: FakeFetch,
    private readonly stream: boolean,
  ) {
    this.client = new Anthropic({ apiKey: 'sk-svc-test', baseURL: BASE, fetch, maxRetries: 0, logLevel: 'off' });
  }

  system(text: string): void {
    this.systemText = text;
  }

  user(text: string, images: ImageInput[] = []): void {
    const content: Anthropic.ContentBlockParam[] = images.map((image) => this.image(image));
    content.push({ type: 'text', text });
    this.messages.push({ role: 'user', content });
  }

  toolResults(results: ToolResultInput[]): void {
    const content: Anthropic.ToolResultBlockParam[] = this.lastCalls.map((call, index) => {
      const result = results[index] ?? { text: '' };
      return {
        type: 'tool_result',
        tool_use_id: call.id,
        content: result.image ? [{ type: 'text', text: result.text }, this.image(result.image)] : result.text,
      };
    });
    this.messages.push({ role: 'user', content });
  }

  async send(options: SendOptions = {}): Promise<ClientView> {
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: CLIENT_MODEL,
      max_tokens: options.maxTokens ?? (options.reasoning ? 4096 : 1024),
      messages: this.messages,
    };
    if (this.systemText !== undefined) {
      params.system = options.cacheSystem
        ? [{ type: 'text', text: this.systemText, cache_control: { type: 'ephemeral' } }]
        : this.systemText;
    }
    if (options.tools) {
      params.tools = options.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.schema as Anthropic.Tool.InputSchema,
      }));
    }
    const choice = options.toolChoice;
    if (choice !== undefined || options.parallel === false) {
      const disable = options.parallel === false ? { disable_parallel_tool_use: true } : {};
      if (choice === undefined || choice === 'auto') params.tool_choice = { type: 'auto', ...disable };
      else if (choice === 'none') params.tool_choice = { type: 'none' };
      else if (choice === 'required') params.tool_choice = { type: 'any', ...disable };
      else params.tool_choice = { type: 'tool', name: choice.name, ...disable };
    }
    if (options.stop) params.stop_sequences = options.stop;
    if (options.reasoning) params.thinking = { type: 'enabled', budget_tokens: 2048 };
    if (options.json) params.output_config = { format: { type: 'json_schema', schema: options.json.schema } };
    const message = this.stream ? await this.client.messages.stream(params).finalMessage() : await this.client.messages.create(params);
    this.messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
    this.lastCalls = message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    const usage = message.usage;
    return {
      text: message.content
        .filter((block): block is Anthropic.TextBlock => block.type === 'text')
        .map((block) => block.text)
        .join(''),
      reasoning: message.content
        .filter((block): block is Anthropic.ThinkingBlock => block.type === 'thinking')
        .map((block) => block.thinking)
        .join(''),
      toolCalls: this.lastCalls.map((call) => ({ id: call.id, name: call.name, args: call.input })),
      finish: message.stop_reason ?? '',
      usage: {
        input: usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
        cached: usage.cache_read_input_tokens ?? 0,
        output: usage.output_tokens,
        reasoning: 0,
      },
    };
  }

  private image(image: ImageInput): Anthropic.ImageBlockParam {
    return image.kind === 'base64'
      ? {
          type: 'image',
          source: { type: 'base64', media_type: image.mediaType as Anthropic.Base64ImageSource['media_type'], data: image.data },
        }
      : { type: 'image', source: { type: 'url', url: image.url } };
  }
}

class ChatConversation implements ClientConversation {
  readonly protocol = 'chat' as const;
  private readonly client: OpenAI;
  private readonly messages: OpenAI.ChatCompletionMessageParam[] = [];
  private lastCalls: Array<{ id: string; name: string }> = [];

  constructor(
    fetch: FakeFetch,
    private readonly stream: boolean,
  ) {
    this.client = new OpenAI({ apiKey: 'sk-svc-test', baseURL: `${BASE}/v1`, fetch, maxRetries: 0 });
  }

  system(text: string): void {
    this.messages.unshift({ role: 'system', content: text });
  }

  user(text: string, images: ImageInput[] = []): void {
    if (images.length === 0) {
      this.messages.push({ role: 'user', content: text });
      return;
    }
    this.messages.push({
      role: 'user',
      content: [{ type: 'text', text }, ...images.map((image) => ({ type: 'image_url' as const, image_url: { url: dataUrl(image) } }))],
    });
  }

  toolResults(results: ToolResultInput[]): void {
    const images: ImageInput[] = [];
    this.lastCalls.forEach((call, index) => {
      const result = results[index] ?? { text: '' };
      this.messages.push({ role: 'tool', tool_call_id: call.id, content: result.text });
      if (result.image) images.push(result.image);
    });
    // Chat tool messages carry text only: a client sends a tool's image as a user message after them.
    if (images.length > 0) {
      this.messages.push({
        role: 'user',
        content: images.map((image) => ({ type: 'image_url' as const, image_url: { url: dataUrl(image) } })),
      });
    }
  }

  async send(options: SendOptions = {}): Promise<ClientView> {
    const params: OpenAI.ChatCompletionCreateParamsNonStreaming = { model: CLIENT_MODEL, messages: this.messages };
    if (options.tools) {
      params.tools = options.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.schema },
      }));
    }
    const choice = options.toolChoice;
    if (choice !== undefined)
      params.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
    if (options.parallel === false) params.parallel_tool_calls = false;
    if (options.maxTokens !== undefined) params.max_completion_tokens = options.maxTokens;
    if (options.stop) params.stop = options.stop;
    if (options.reasoning) params.reasoning_effort = 'high';
    if (options.json)
      params.response_format = { type: 'json_schema', json_schema: { name: options.json.name, schema: options.json.schema, strict: true } };
    let completion: OpenAI.ChatCompletion;
    let streamedReasoning = '';
    if (this.stream) {
      const stream = this.client.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } });
      // The accumulator keeps only the last value of a field it does not know (`reasoning_content`):
      // clients that show reasoning read the deltas themselves.
      stream.on('chunk', (chunk) => {
        const delta: unknown = chunk.choices[0]?.delta;
        const piece = (delta as { reasoning_content?: unknown } | undefined)?.reasoning_content;
        if (typeof piece === 'string') streamedReasoning += piece;
      });
      completion = await stream.finalChatCompletion();
    } else {
      completion = await this.client.chat.completions.create(params);
    }
    const message = completion.choices[0]!.message;
    const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
    this.lastCalls = calls.map((call) => ({ id: call.id, name: call.function.name }));
    // Agent loops send the assistant message back as received (unknown fields such as
    // `reasoning_content` and the gateway's `reasoning_signature` included).
    const reasoning = (message as unknown as { reasoning_content?: unknown }).reasoning_content;
    // A client that collected the reasoning deltas replays all of it, not the accumulator's last piece.
    this.messages.push(
      (this.stream && streamedReasoning !== ''
        ? { ...message, reasoning_content: streamedReasoning }
        : message) as OpenAI.ChatCompletionMessageParam,
    );
    const usage = completion.usage;
    return {
      text: message.content ?? '',
      reasoning: this.stream ? streamedReasoning : typeof reasoning === 'string' ? reasoning : '',
      toolCalls: calls.map((call) => ({ id: call.id, name: call.function.name, args: parseArgs(call.function.arguments) })),
      finish: completion.choices[0]!.finish_reason ?? '',
      usage: {
        input: usage?.prompt_tokens ?? 0,
        cached: usage?.prompt_tokens_details?.cached_tokens ?? 0,
        output: usage?.completion_tokens ?? 0,
        reasoning: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
      },
    };
  }
}

class ResponsesConversation implements ClientConversation {
  readonly protocol = 'responses' as const;
  private readonly client: OpenAI;
  private readonly input: OpenAI.Responses.ResponseInputItem[] = [];
  private instructions: string | undefined;
  private lastCalls: Array<{ callId: string; name: string }> = [];

  constructor(
    fetch: FakeFetch,
    private readonly stream: boolean,
  ) {
    this.client = new OpenAI({ apiKey: 'sk-svc-test', baseURL: `${BASE}/v1`, fetch, maxRetries: 0 });
  }

  system(text: string): void {
    this.instructions = text;
  }

  user(text: string, images: ImageInput[] = []): void {
    this.input.push({
      role: 'user',
      content: [
        { type: 'input_text', text },
        ...images.map((image) => ({ type: 'input_image' as const, image_url: dataUrl(image), detail: 'auto' as const })),
      ],
    });
  }

  toolResults(results: ToolResultInput[]): void {
    this.lastCalls.forEach((call, index) => {
      const result = results[index] ?? { text: '' };
      this.input.push({
        type: 'function_call_output',
        call_id: call.callId,
        output: result.image
          ? [
              { type: 'input_text', text: result.text },
              { type: 'input_image', image_url: dataUrl(result.image), detail: 'auto' },
            ]
          : result.text,
      });
    });
  }

  async send(options: SendOptions = {}): Promise<ClientView> {
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: CLIENT_MODEL, input: this.input };
    if (this.instructions !== undefined) params.instructions = this.instructions;
    if (options.tools) {
      params.tools = options.tools.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: tool.schema,
        strict: false,
      }));
    }
    const choice = options.toolChoice;
    if (choice !== undefined) params.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
    if (options.parallel === false) params.parallel_tool_calls = false;
    if (options.maxTokens !== undefined) params.max_output_tokens = options.maxTokens;
    if (options.reasoning) {
      params.reasoning = { effort: 'high', summary: 'auto' };
      params.include = ['reasoning.encrypted_content'];
      params.store = false;
    }
    if (options.json) params.text = { format: { type: 'json_schema', name: options.json.name, schema: options.json.schema, strict: true } };
    let response: OpenAI.Responses.Response;
    if (this.stream) {
      const { stream: _whole, ...streamParams } = params;
      const stream = this.client.responses.stream(streamParams);
      // The accumulator adopts the terminal response only from `response.completed`; an
      // incomplete answer's status, reason and usage are on its own terminal event.
      let terminal: OpenAI.Responses.Response | undefined;
      stream.on('event', (event) => {
        if (event.type === 'response.incomplete' || event.type === 'response.failed') terminal = event.response;
      });
      const final = await stream.finalResponse();
      response =
        terminal === undefined
          ? final
          : { ...final, status: terminal.status, incomplete_details: terminal.incomplete_details, usage: terminal.usage };
    } else {
      response = await this.client.responses.create(params);
    }
    // A client replays every output item (reasoning included) as the next request's input.
    for (const item of response.output) this.input.push(item as OpenAI.Responses.ResponseInputItem);
    const calls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    this.lastCalls = calls.map((call) => ({ callId: call.call_id, name: call.name }));
    const usage = response.usage;
    const reasoning = response.output
      .filter((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning')
      .map((item) => item.summary.map((part) => part.text).join(''))
      .join('');
    // `output_text` is a convenience the SDK adds to created responses but not to streamed ones.
    const text = response.output
      .filter((item): item is OpenAI.Responses.ResponseOutputMessage => item.type === 'message')
      .flatMap((item) => item.content)
      .map((part) => (part.type === 'output_text' ? part.text : ''))
      .join('');
    return {
      text,
      reasoning,
      toolCalls: calls.map((call) => ({ id: call.call_id, name: call.name, args: parseArgs(call.arguments) })),
      finish: response.status === 'incomplete' ? `incomplete:${response.incomplete_details?.reason ?? ''}` : String(response.status),
      usage: {
        input: usage?.input_tokens ?? 0,
        cached: usage?.input_tokens_details?.cached_tokens ?? 0,
        output: usage?.output_tokens ?? 0,
        reasoning: usage?.output_tokens_details?.reasoning_tokens ?? 0,
      },
    };
  }
}

class GenerateContentConversation implements ClientConversation {
  readonly protocol = 'generate-content' as const;
  private readonly ai: GoogleGenAI;
  private readonly contents: Content[] = [];
  private systemText: string | undefined;
  private lastCalls: Array<{ id?: string; name: string }> = [];

  constructor(
    fetch: FakeFetch,
    private readonly stream: boolean,
  ) {
    this.ai = new GoogleGenAI({ apiKey: 'sk-svc-test', apiVersion: 'v1beta', httpOptions: { baseUrl: BASE, fetch } });
  }

  system(text: string): void {
    this.systemText = text;
  }

  user(text: string, images: ImageInput[] = []): void {
    this.contents.push({ role: 'user', parts: [{ text }, ...images.map((image) => this.image(image))] });
  }

  toolResults(results: ToolResultInput[]): void {
    const parts: Part[] = this.lastCalls.map((call, index) => ({
      functionResponse: { ...(call.id ? { id: call.id } : {}), name: call.name, response: { result: results[index]?.text ?? '' } },
    }));
    // Images a tool produced travel as parts of the same user content, after the responses.
    for (const result of results) if (result.image) parts.push(this.image(result.image));
    this.contents.push({ role: 'user', parts });
  }

  async send(options: SendOptions = {}): Promise<ClientView> {
    const config: GenerateContentConfig = {};
    if (this.systemText !== undefined) config.systemInstruction = this.systemText;
    if (options.tools) {
      config.tools = [
        {
          functionDeclarations: options.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: tool.schema,
          })),
        },
      ];
    }
    const choice = options.toolChoice;
    if (choice !== undefined) {
      const mode =
        choice === 'auto'
          ? FunctionCallingConfigMode.AUTO
          : choice === 'none'
            ? FunctionCallingConfigMode.NONE
            : FunctionCallingConfigMode.ANY;
      config.toolConfig = {
        functionCallingConfig: typeof choice === 'string' ? { mode } : { mode, allowedFunctionNames: [choice.name] },
      };
    }
    if (options.maxTokens !== undefined) config.maxOutputTokens = options.maxTokens;
    if (options.stop) config.stopSequences = options.stop;
    if (options.reasoning) config.thinkingConfig = { includeThoughts: true, thinkingBudget: 2048 };
    if (options.json) {
      config.responseMimeType = 'application/json';
      config.responseJsonSchema = options.json.schema;
    }
    const request = { model: CLIENT_MODEL, contents: this.contents, config };
    const chunks: GenerateContentResponse[] = [];
    if (this.stream) {
      for await (const chunk of await this.ai.models.generateContentStream(request)) chunks.push(chunk);
    } else {
      chunks.push(await this.ai.models.generateContent(request));
    }
    const last = chunks[chunks.length - 1];
    if (last === undefined) throw new Error('the Generate-Content stream ended without a chunk');
    // Like the SDK's chat helper: the parts of every chunk make the model content replayed next turn.
    const parts: Part[] = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    this.contents.push({ role: 'model', parts });
    const calls = parts.filter((part) => part.functionCall !== undefined).map((part) => part.functionCall!);
    this.lastCalls = calls.map((call) => ({ id: call.id, name: call.name ?? '' }));
    const usage = last.usageMetadata;
    return {
      text: parts
        .filter((part) => typeof part.text === 'string' && part.thought !== true)
        .map((part) => part.text)
        .join(''),
      reasoning: parts
        .filter((part) => typeof part.text === 'string' && part.thought === true)
        .map((part) => part.text)
        .join(''),
      toolCalls: calls.map((call) => ({ id: call.id ?? '', name: call.name ?? '', args: call.args ?? {} })),
      finish: String(last.candidates?.[0]?.finishReason ?? ''),
      usage: {
        input: usage?.promptTokenCount ?? 0,
        cached: usage?.cachedContentTokenCount ?? 0,
        output: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
        reasoning: usage?.thoughtsTokenCount ?? 0,
      },
    };
  }

  private image(image: ImageInput): Part {
    return image.kind === 'base64'
      ? { inlineData: { mimeType: image.mediaType, data: image.data } }
      : { fileData: { mimeType: image.mediaType, fileUri: image.url } };
  }
}

export function createConversation(protocol: Protocol, fetch: FakeFetch, stream: boolean): ClientConversation {
  switch (protocol) {
    case 'messages':
      return new MessagesConversation(fetch, stream);
    case 'chat':
      return new ChatConversation(fetch, stream);
    case 'responses':
      return new ResponsesConversation(fetch, stream);
    case 'generate-content':
      return new GenerateContentConversation(fetch, stream);
  }
}
