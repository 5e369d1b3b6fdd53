/**
 * What Chat Completions providers send back, validated leniently: every field is `.nullish()` and
 * unknown fields pass, because compat vendors (deepseek, groq, mistral, moonshot, xai) add their
 * own and omit others. Only the fields this codec reads are declared.
 */
import { z } from 'zod';

export const chatUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
  /** deepseek's own name for cached prompt tokens. */
  prompt_cache_hit_tokens: z.number().nullish(),
});
export type ChatUpstreamUsage = z.infer<typeof chatUsageSchema>;

const functionSchema = z.looseObject({
  name: z.string().nullish(),
  // A few vendors answer with an object instead of the JSON string.
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
});

const toolCallSchema = z.looseObject({
  index: z.number().nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: functionSchema.nullish(),
});
export type ChatUpstreamToolCall = z.infer<typeof toolCallSchema>;

/** Mistral reasoning models answer `content` as parts, thinking included. */
const contentPartSchema = z.looseObject({
  type: z.string().nullish(),
  text: z.string().nullish(),
  thinking: z.array(z.looseObject({ type: z.string().nullish(), text: z.string().nullish() })).nullish(),
});
export type ChatUpstreamContentPart = z.infer<typeof contentPartSchema>;

const contentSchema = z.union([z.string(), z.array(contentPartSchema)]).nullish();

/** What a message (complete answer) and a delta (stream chunk) both carry. */
const messageFields = {
  content: contentSchema,
  refusal: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  /** OpenRouter and recent vLLM name it `reasoning`. */
  reasoning: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
};

export const chatCompletionSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created: z.number().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().nullish(),
        message: z.looseObject(messageFields).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
});
export type ChatUpstreamCompletion = z.infer<typeof chatCompletionSchema>;

export const chatChunkSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created: z.number().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().nullish(),
        delta: z.looseObject(messageFields).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
  /** groq repeats the usage here; older groq versions put it only here. */
  x_groq: z.looseObject({ usage: chatUsageSchema.nullish() }).nullish(),
  error: z.unknown().optional(),
});
export type ChatUpstreamChunk = z.infer<typeof chatChunkSchema>;

/** `{error:{message,type,param,code}}` and the shapes vendors use instead. */
export const chatErrorBodySchema = z.looseObject({
  error: z
    .union([
      z.string(),
      z.looseObject({
        message: z.string().nullish(),
        type: z.string().nullish(),
        param: z.string().nullish(),
        code: z.union([z.string(), z.number()]).nullish(),
      }),
    ])
    .nullish(),
  message: z.string().nullish(),
  detail: z.unknown().optional(),
  type: z.string().nullish(),
  code: z.union([z.string(), z.number()]).nullish(),
});
export type ChatUpstreamErrorBody = z.infer<typeof chatErrorBodySchema>;
