/**
 * What a Chat Completions client may send (POST /v1/chat/completions), validated strictly enough
 * to name the faulty field, loosely enough to let unknown vendor fields through (they become
 * request extensions, replayed only to a Chat upstream).
 */
import { z } from 'zod';

const cacheControlSchema = z.object({ type: z.literal('ephemeral'), ttl: z.string().optional() });

const textPartSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  /** Sent by agent CLIs going through OpenAI-compatible routers to Messages-family models. */
  cache_control: cacheControlSchema.nullish(),
});

const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({
    url: z.string().min(1),
    detail: z.enum(['low', 'high', 'auto']).nullish(),
  }),
  cache_control: cacheControlSchema.nullish(),
});

const audioPartSchema = z.looseObject({ type: z.literal('input_audio'), input_audio: z.unknown() });

const filePartSchema = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    file_data: z.string().nullish(),
    file_id: z.string().nullish(),
    filename: z.string().nullish(),
  }),
});

const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

export const userPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema, audioPartSchema, filePartSchema]);
export type ChatUserPart = z.infer<typeof userPartSchema>;
export type ChatTextPart = z.infer<typeof textPartSchema>;

const systemMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer']),
  content: z.union([z.string(), z.array(textPartSchema)]),
  name: z.string().nullish(),
});

const userMessageSchema = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(userPartSchema)]),
  name: z.string().nullish(),
});

const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function').nullish(),
  function: z.looseObject({
    name: z.string(),
    // Some clients echo arguments back as an object; the IR keeps a string.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
  }),
});

const assistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPartSchema, refusalPartSchema]))]).nullish(),
  refusal: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
  reasoning_content: z.string().nullish(),
  reasoning_signature: z.string().nullish(),
  name: z.string().nullish(),
});

const toolMessageSchema = z.looseObject({
  role: z.literal('tool'),
  tool_call_id: z.string(),
  content: z.union([z.string(), z.array(textPartSchema)]),
});

export const chatMessageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

const functionSpecSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/**
 * Function tools, and tools of other types (`custom`, vendor built-ins) kept whole for a Chat
 * upstream. One object schema rather than a union, so a broken function tool is reported at its
 * own field (`tools[0].function.name`) instead of as "matches no tool type".
 */
const toolSchema = z.looseObject({ type: z.string(), function: functionSpecSchema.optional() }).superRefine((tool, context) => {
  if (tool.type === 'function' && tool.function === undefined) {
    context.addIssue({ code: 'custom', path: ['function'], message: 'a function tool needs its function definition' });
  }
});
export type ChatTool = z.infer<typeof toolSchema>;
export type ChatFunctionTool = ChatTool & { type: 'function'; function: z.infer<typeof functionSpecSchema> };

export function isFunctionTool(tool: ChatTool): tool is ChatFunctionTool {
  return tool.type === 'function' && tool.function !== undefined;
}

const toolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
  z.looseObject({
    type: z.literal('allowed_tools'),
    allowed_tools: z.looseObject({ mode: z.enum(['auto', 'required']), tools: z.array(z.unknown()) }),
  }),
]);

const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().nullish(),
      description: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const positiveInt = z.number().int().positive();

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  /** Not an OpenAI field, but compat clients send it and Messages / Generate-Content take it. */
  top_k: positiveInt.nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  seed: z.number().int().nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  user: z.string().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
  response_format: responseFormatSchema.nullish(),
  tools: z.array(toolSchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** Every top-level field the decoder maps; the rest become extensions. */
export const KNOWN_REQUEST_FIELDS: ReadonlySet<string> = new Set(Object.keys(chatRequestSchema.shape));
