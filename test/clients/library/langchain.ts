/**
 * LangChain's side of the library cells: the chat model classes pointed at the gateway with nothing
 * but their base URL and key, then invoke / stream / bindTools / withStructuredOutput.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, HumanMessage, ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { PNG_BASE64, PROMPTS, type LibraryKind, type Observation } from './observation';
import type { LangChainVariant } from './variants';

/** `maxTokens` unset: each class's own default, as most applications leave it. */
function chatModel(variant: LangChainVariant, baseUrl: string, key: string, model: string, maxTokens?: number): BaseChatModel {
  switch (variant) {
    case 'LangChain ChatOpenAI':
      return new ChatOpenAI({
        model,
        apiKey: key,
        configuration: { baseURL: `${baseUrl}/v1` },
        useResponsesApi: false,
        maxRetries: 0,
        maxTokens,
      });
    case 'LangChain ChatOpenAI (Responses API)':
      return new ChatOpenAI({
        model,
        apiKey: key,
        configuration: { baseURL: `${baseUrl}/v1` },
        useResponsesApi: true,
        maxRetries: 0,
        maxTokens,
      });
    case 'LangChain ChatAnthropic':
      return new ChatAnthropic({
        model,
        apiKey: key,
        anthropicApiUrl: baseUrl,
        maxRetries: 0,
        ...(maxTokens !== undefined ? { maxTokens } : {}),
      });
    case 'LangChain ChatGoogleGenerativeAI':
      return new ChatGoogleGenerativeAI({ model, apiKey: key, baseUrl, maxRetries: 0, maxOutputTokens: maxTokens });
  }
}

function usage(message: AIMessage): Pick<Observation, 'inputTokens' | 'outputTokens'> {
  return { inputTokens: message.usage_metadata?.input_tokens, outputTokens: message.usage_metadata?.output_tokens };
}

const weather = z.object({ city: z.string(), temperature: z.number() });

export async function runLangChainCell(
  variant: LangChainVariant,
  kind: LibraryKind,
  baseUrl: string,
  key: string,
  modelId: string,
): Promise<Observation> {
  const model = chatModel(variant, baseUrl, key, modelId);
  switch (kind) {
    case 'plain': {
      const message = await chatModel(variant, baseUrl, key, modelId, PROMPTS.maxOutputTokens).invoke(PROMPTS.plain);
      return { text: message.text, ...usage(message) };
    }
    case 'streaming': {
      const deltas: string[] = [];
      let joined: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(PROMPTS.streaming)) {
        if (chunk.text !== '') deltas.push(chunk.text);
        joined = joined === undefined ? chunk : joined.concat(chunk);
      }
      return { text: joined?.text ?? '', deltas, ...(joined ? usage(joined) : {}) };
    }
    case 'tool': {
      let calls = 0;
      const lookup = tool(
        async () => {
          calls += 1;
          return PROMPTS.toolOutput;
        },
        {
          name: PROMPTS.toolName,
          description: 'Looks a code up by its key',
          schema: z.object({ key: z.string() }),
        },
      );
      if (model.bindTools === undefined) throw new Error(`${variant} has no bindTools`);
      const withTools = model.bindTools([lookup]);
      const history: BaseMessage[] = [new HumanMessage(PROMPTS.tool)];
      const first = await withTools.invoke(history);
      history.push(first);
      for (const call of first.tool_calls ?? []) {
        const output = await lookup.invoke(call.args as { key: string });
        history.push(new ToolMessage({ tool_call_id: call.id ?? '', content: String(output) }));
      }
      const second = await withTools.invoke(history);
      return { text: second.text, toolCalls: calls, ...usage(second) };
    }
    case 'structured': {
      const object = await model.withStructuredOutput(weather).invoke(PROMPTS.structured);
      return { object };
    }
    case 'vision': {
      const message = await model.invoke([
        new HumanMessage({
          content: [
            { type: 'text', text: PROMPTS.vision },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        }),
      ]);
      return { text: message.text, ...usage(message) };
    }
  }
}
