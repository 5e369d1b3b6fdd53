/**
 * The AI SDK's side of the library cells: each provider package pointed at the gateway with nothing
 * but its base URL and key, then `generateText` / `streamText` as an application would call them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, Output, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import { PNG_BASE64, PROMPTS, type LibraryKind, type Observation } from './observation';
import type { AiSdkVariant } from './variants';

function languageModel(variant: AiSdkVariant, baseUrl: string, key: string, model: string): LanguageModel {
  switch (variant) {
    case 'AI SDK openai (chat)':
      return createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key }).chat(model);
    case 'AI SDK openai (responses)':
      return createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key }).responses(model);
    case 'AI SDK anthropic':
      return createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: key })(model);
    case 'AI SDK google':
      return createGoogleGenerativeAI({ baseURL: `${baseUrl}/v1beta`, apiKey: key })(model);
    case 'AI SDK openai-compatible':
      return createOpenAICompatible({
        name: 'gateway',
        baseURL: `${baseUrl}/v1`,
        apiKey: key,
        includeUsage: true,
        supportsStructuredOutputs: true,
      })(model);
  }
}

const weather = z.object({ city: z.string(), temperature: z.number() });

export async function runAiSdkCell(
  variant: AiSdkVariant,
  kind: LibraryKind,
  baseUrl: string,
  key: string,
  modelId: string,
): Promise<Observation> {
  const model = languageModel(variant, baseUrl, key, modelId);
  const common = { model, maxRetries: 0 } as const;
  switch (kind) {
    case 'plain': {
      // An explicit cap, as applications set one: openai-compatible sends it as max_tokens on every model.
      const result = await generateText({ ...common, prompt: PROMPTS.plain, maxOutputTokens: PROMPTS.maxOutputTokens });
      return { text: result.text, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
    }
    case 'streaming': {
      const result = streamText({ ...common, prompt: PROMPTS.streaming, onError: () => undefined });
      const deltas: string[] = [];
      for await (const delta of result.textStream) deltas.push(delta);
      const usage = await result.usage;
      return { text: await result.text, deltas, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
    }
    case 'tool': {
      let calls = 0;
      const result = await generateText({
        ...common,
        prompt: PROMPTS.tool,
        tools: {
          [PROMPTS.toolName]: tool({
            description: 'Looks a code up by its key',
            inputSchema: z.object({ key: z.string() }),
            execute: async () => {
              calls += 1;
              return PROMPTS.toolOutput;
            },
          }),
        },
        stopWhen: stepCountIs(3),
      });
      return {
        text: result.text,
        toolCalls: calls,
        inputTokens: result.totalUsage.inputTokens,
        outputTokens: result.totalUsage.outputTokens,
      };
    }
    case 'structured': {
      const result = await generateText({ ...common, prompt: PROMPTS.structured, output: Output.object({ schema: weather }) });
      return { object: result.output, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
    }
    case 'vision': {
      const result = await generateText({
        ...common,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: PROMPTS.vision },
              { type: 'image', image: PNG_BASE64, mediaType: 'image/png' },
            ],
          },
        ],
      });
      return { text: result.text, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
    }
  }
}
