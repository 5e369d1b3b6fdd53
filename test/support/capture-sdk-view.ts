/**
 * A decoded capture re-encoded for one client protocol (streamed or not) by that protocol's
 * inbound codec, served through a fake `fetch` to the protocol's official SDK, and read back from
 * what the SDK accumulated: `messages.stream().finalMessage()` / `messages.create()`,
 * `chat.completions.stream().finalChatCompletion()` / `create()`, `responses.stream()
 * .finalResponse()` / `create()`, `models.generateContentStream()` / `generateContent()`.
 *
 * Which SDK fields carry the usage totals (input total: cached and cache writes included; output
 * total: reasoning included):
 * - Messages: `usage.input_tokens + cache_read_input_tokens + cache_creation_input_tokens`, `usage.output_tokens`;
 * - Chat: `usage.prompt_tokens`, `usage.completion_tokens` (the stream asks `include_usage`);
 * - Responses: `usage.input_tokens`, `usage.output_tokens`;
 * - Generate-Content: `usageMetadata.promptTokenCount`, `candidatesTokenCount + thoughtsTokenCount`
 *   (of the last chunk that has them, when streamed).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { GenerateContentResponse } from '@google/genai';
import type OpenAI from 'openai';
import type { Protocol } from '../../src/ir/protocol';
import type { IrResponse } from '../../src/ir/response';
import type { IrStreamEvent } from '../../src/ir/stream-event';
import type { CodecContext, InboundStreamOptions } from '../../src/protocols/codec';
import { CODECS } from '../../src/relay/codec-registry';
import type { ToolCallFact, Totals } from './capture-facts';
import { encodeStream } from './codec-harness';
import { chatClient, jsonResponse as chatJson, sseResponse as chatSse } from './sdk-chat';
import { sdkClient as generateContentClient } from './sdk-generate-content';
import { fakeMessagesClient, SDK_REQUEST } from './sdk-messages';
import {
  deterministicContext,
  jsonResponse as responsesJson,
  sdkClient as responsesClient,
  sseResponse as responsesSse,
} from './sdk-responses';

/** What a client of the protocol got, read from the official SDK's parsed answer. */
export interface ClientView {
  /** Visible answer text (for Messages and Generate-Content a refusal's explanation is part of it). */
  text: string;
  /** Chat `message.refusal`, Responses `refusal` content; empty elsewhere. */
  refusal: string;
  reasoning: string;
  toolCalls: ToolCallFact[];
  /** The protocol's own stop value: Messages `stop_reason`, Chat `finish_reason`, Responses `status[:reason]`, Generate-Content `finishReason`. */
  stop: string;
  totals: Totals;
}

export interface SdkReplay {
  view: ClientView;
  /** What our encoder put on the wire (the body, or the frames joined), for failure messages. */
  wire: string;
}

const MODEL = 'capture-replay-model';

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** Arguments the way an SDK user reads them: strict `JSON.parse` (an empty string is an error). */
function parseArguments(json: string): Record<string, unknown> {
  try {
    return record(JSON.parse(json));
  } catch {
    throw new Error(`the client got tool-call arguments ${JSON.stringify(json)} that JSON.parse rejects`);
  }
}

function messagesView(message: Anthropic.Message): ClientView {
  const view: ClientView = {
    text: '',
    refusal: '',
    reasoning: '',
    toolCalls: [],
    stop: message.stop_reason ?? '',
    totals: { input: 0, output: 0 },
  };
  for (const block of message.content) {
    if (block.type === 'text') view.text += block.text;
    else if (block.type === 'thinking') view.reasoning += block.thinking;
    else if (block.type === 'tool_use') view.toolCalls.push({ name: block.name, arguments: record(block.input) });
  }
  const usage = message.usage;
  view.totals = {
    input: usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
    output: usage.output_tokens,
  };
  return view;
}

function chatView(completion: OpenAI.ChatCompletion, streamedReasoning?: string): ClientView {
  const choice = completion.choices[0];
  const message = choice?.message;
  return {
    text: message?.content ?? '',
    refusal: message?.refusal ?? '',
    // The SDK's accumulator keeps only the last delta of a field it does not know, so a streaming
    // client reads `reasoning_content` from the chunks; a complete message carries it whole.
    reasoning: streamedReasoning ?? String(record(message).reasoning_content ?? ''),
    toolCalls: (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ name: call.function.name, arguments: parseArguments(call.function.arguments) }] : [],
    ),
    stop: choice?.finish_reason ?? '',
    totals: { input: completion.usage?.prompt_tokens ?? 0, output: completion.usage?.completion_tokens ?? 0 },
  };
}

function responsesView(response: OpenAI.Responses.Response): ClientView {
  const view: ClientView = { text: '', refusal: '', reasoning: '', toolCalls: [], stop: '', totals: { input: 0, output: 0 } };
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const content of item.content) {
        if (content.type === 'output_text') view.text += content.text;
        else if (content.type === 'refusal') view.refusal += content.refusal;
      }
    } else if (item.type === 'reasoning') {
      view.reasoning += item.summary.map((summary) => summary.text).join('');
    } else if (item.type === 'function_call') {
      view.toolCalls.push({ name: item.name, arguments: parseArguments(item.arguments) });
    }
  }
  const reason = response.incomplete_details?.reason;
  view.stop = `${response.status ?? ''}${reason ? `:${reason}` : ''}`;
  view.totals = { input: response.usage?.input_tokens ?? 0, output: response.usage?.output_tokens ?? 0 };
  return view;
}

/** Folds Generate-Content chunks (one when not streamed): parts in order, last finish and usage. */
function generateContentView(chunks: readonly GenerateContentResponse[]): ClientView {
  const view: ClientView = { text: '', refusal: '', reasoning: '', toolCalls: [], stop: '', totals: { input: 0, output: 0 } };
  for (const chunk of chunks) {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (typeof part.text === 'string') {
        if (part.thought === true) view.reasoning += part.text;
        else view.text += part.text;
      }
      if (part.functionCall) view.toolCalls.push({ name: part.functionCall.name ?? '', arguments: record(part.functionCall.args) });
    }
    if (candidate?.finishReason) view.stop = String(candidate.finishReason);
    const usage = chunk.usageMetadata;
    if (usage?.promptTokenCount !== undefined || usage?.candidatesTokenCount !== undefined) {
      view.totals = { input: usage.promptTokenCount ?? 0, output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0) };
    }
  }
  return view;
}

function streamOptions(protocol: Protocol, context: CodecContext): InboundStreamOptions {
  return {
    model: MODEL,
    includeUsage: true,
    sse: true,
    ...(protocol === 'responses' ? { responseId: context.newId('resp_') } : {}),
  };
}

/**
 * Encodes the answer for `protocol` and parses it with the official SDK. `events` is the answer as
 * stream events (a decoded stream, or {@link responseToEvents} of a complete one).
 */
export async function replayThroughSdk(
  protocol: Protocol,
  answer: { response: IrResponse; events: IrStreamEvent[] },
  stream: boolean,
): Promise<SdkReplay> {
  const context = deterministicContext();
  const options = streamOptions(protocol, context);
  const inbound = CODECS[protocol].inbound;
  const frames = stream ? encodeStream(protocol, answer.events, options, context) : [];
  const body = stream ? undefined : inbound.encodeResponse({ ...answer.response, model: MODEL }, options, context);
  const wire = stream ? frames.join('') : JSON.stringify(body);
  switch (protocol) {
    case 'messages': {
      const client = fakeMessagesClient(stream ? { body: frames } : { body: wire, headers: { 'content-type': 'application/json' } });
      const message = stream ? await client.messages.stream(SDK_REQUEST).finalMessage() : await client.messages.create(SDK_REQUEST);
      return { view: messagesView(message), wire };
    }
    case 'chat': {
      const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'replay' }] };
      if (!stream) {
        const completion = await chatClient(() => chatJson(200, body)).chat.completions.create(request);
        return { view: chatView(completion), wire };
      }
      const runner = chatClient(() => chatSse(frames)).chat.completions.stream({ ...request, stream_options: { include_usage: true } });
      let reasoning = '';
      runner.on('chunk', (chunk) => {
        for (const choice of chunk.choices) {
          const piece = record(choice.delta).reasoning_content;
          if (typeof piece === 'string') reasoning += piece;
        }
      });
      return { view: chatView(await runner.finalChatCompletion(), reasoning), wire };
    }
    case 'responses': {
      const request = { model: MODEL, input: 'replay' };
      if (!stream) return { view: responsesView(await responsesClient(() => responsesJson(200, body)).responses.create(request)), wire };
      const runner = responsesClient(() => responsesSse(frames)).responses.stream(request);
      let incomplete: OpenAI.Responses.Response | undefined;
      runner.on('event', (event) => {
        if (event.type === 'response.incomplete') incomplete = event.response;
      });
      const final = await runner.finalResponse();
      // The SDK adopts only `response.completed` as its final snapshot: after `response.incomplete`
      // (length, content filter) `finalResponse()` is the stale `response.created` snapshot, so a
      // client reads that terminal event's response, as the real API sends the same event.
      return { view: responsesView(incomplete ?? final), wire };
    }
    case 'generate-content': {
      const { client } = generateContentClient(() =>
        stream ? { body: wire, headers: { 'content-type': 'text/event-stream' } } : { body: wire },
      );
      const request = { model: MODEL, contents: 'replay' };
      if (!stream) return { view: generateContentView([await client.models.generateContent(request)]), wire };
      const chunks: GenerateContentResponse[] = [];
      for await (const chunk of await client.models.generateContentStream(request)) chunks.push(chunk);
      return { view: generateContentView(chunks), wire };
    }
  }
}
