/**
 * What a Messages client may send (INTERFACE.md 4.1 and the public API). Objects are loose: unknown
 * fields are kept (top-level ones become IR extensions). Content blocks are validated one by one
 * against the schema of their `type`; a type we do not know is a native block, passed on as is.
 */
import { z } from 'zod';

export const cacheControlSchema = z.looseObject({
  type: z.literal('ephemeral'),
  ttl: z.string().nullish(),
});

const base64SourceSchema = z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string() });
const urlSourceSchema = z.looseObject({ type: z.literal('url'), url: z.string().min(1) });
const fileSourceSchema = z.looseObject({ type: z.literal('file'), file_id: z.string().min(1) });
const textSourceSchema = z.looseObject({ type: z.literal('text'), media_type: z.string().nullish(), data: z.string() });
const contentSourceSchema = z.looseObject({ type: z.literal('content'), content: z.unknown() });

export const textBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControlSchema.nullish(),
  citations: z.array(z.unknown()).nullish(),
});

export const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [base64SourceSchema, urlSourceSchema, fileSourceSchema]),
  cache_control: cacheControlSchema.nullish(),
});

export const documentBlockSchema = z.looseObject({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [base64SourceSchema, textSourceSchema, urlSourceSchema, fileSourceSchema, contentSourceSchema]),
  title: z.string().nullish(),
  context: z.string().nullish(),
  citations: z.unknown().optional(),
  cache_control: cacheControlSchema.nullish(),
});

export const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
  cache_control: cacheControlSchema.nullish(),
});

export const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z
    .union([z.string(), z.array(z.looseObject({ type: z.string() }))], {
      error: 'expected a string or an array of content blocks',
    })
    .nullish(),
  is_error: z.boolean().nullish(),
  cache_control: cacheControlSchema.nullish(),
});

export const thinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().nullish(),
});

export const redactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});

/** Every block has a `type`; the per-type schemas above check the rest. */
export const anyBlockSchema = z.looseObject({ type: z.string().min(1) });

export const messageParamSchema = z.looseObject({
  /**
   * `system` and `developer` are not in the public API, but Claude Code puts its environment block
   * there for models it does not know; they are carried as system instructions.
   */
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(anyBlockSchema)], { error: 'expected a string or an array of content blocks' }),
});

export const systemBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControlSchema.nullish(),
});

/** A tool with no `type` (or `custom`) is a function tool; any other type is a provider built-in. */
export const toolEntrySchema = z.looseObject({ type: z.string().nullish(), name: z.string().min(1) });

export const customToolSchema = z.looseObject({
  type: z.literal('custom').nullish(),
  name: z.string().min(1),
  description: z.string().nullish(),
  input_schema: z.looseObject({}),
  strict: z.boolean().nullish(),
  cache_control: cacheControlSchema.nullish(),
});

export const toolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('none') }),
]);

export const thinkingConfigSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.int().min(1024) }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive') }),
]);

const jsonSchemaFormatSchema = z.looseObject({ type: z.literal('json_schema'), schema: z.looseObject({}) });

export const outputConfigSchema = z.looseObject({
  format: jsonSchemaFormatSchema.nullish(),
  effort: z.enum(['low', 'medium', 'high', 'max']).nullish(),
});

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageParamSchema).min(1),
  max_tokens: z.int().min(1),
  system: z.union([z.string(), z.array(systemBlockSchema)], { error: 'expected a string or an array of text blocks' }).nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().min(0).max(1).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.int().min(0).nullish(),
  tools: z.array(toolEntrySchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  thinking: thinkingConfigSchema.nullish(),
  output_config: outputConfigSchema.nullish(),
  /** The structured-output beta's older spelling of `output_config.format`. */
  output_format: jsonSchemaFormatSchema.nullish(),
});

/** Top-level fields the IR has a place for; every other one travels in `extensions`. */
export const KNOWN_REQUEST_FIELDS: ReadonlySet<string> = new Set(Object.keys(messagesRequestSchema.shape));

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type MessageParam = z.infer<typeof messageParamSchema>;
export type CacheControl = z.infer<typeof cacheControlSchema>;
export type ImageBlock = z.infer<typeof imageBlockSchema>;
export type DocumentBlock = z.infer<typeof documentBlockSchema>;
