/**
 * zod schemas of the Responses request bodies we accept from clients. Top-level objects are loose:
 * fields the IR has no place for survive as `extensions` and reach a Responses upstream untouched.
 * Input items are validated one by one (see decode-request) so an error names the exact item.
 */
import { z } from 'zod';

const detail = z.enum(['low', 'high', 'auto']).nullish();

export const inputTextSchema = z.looseObject({ type: z.literal('input_text'), text: z.string() });
export const outputTextSchema = z.looseObject({ type: z.literal('output_text'), text: z.string() });
export const refusalContentSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
export const inputImageSchema = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail,
});
export const inputFileSchema = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().nullish(),
  file_id: z.string().nullish(),
  file_url: z.string().nullish(),
  filename: z.string().nullish(),
});

export const messageContentSchema = z.discriminatedUnion('type', [
  inputTextSchema,
  outputTextSchema,
  refusalContentSchema,
  inputImageSchema,
  inputFileSchema,
]);
export type MessageContent = z.infer<typeof messageContentSchema>;

export const messageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(messageContentSchema)]),
  id: z.string().nullish(),
});
export type MessageItem = z.infer<typeof messageItemSchema>;

export const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string(),
  /** Codex: the call of a member of a `namespace` tool. */
  namespace: z.string().nullish(),
  arguments: z.string(),
  id: z.string().nullish(),
});

/** A function's output, or a custom tool's (`custom_tool_call_output`, same shape). */
export const functionCallOutputItemSchema = z.looseObject({
  type: z.enum(['function_call_output', 'custom_tool_call_output']),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputTextSchema, inputImageSchema, inputFileSchema]))]),
  id: z.string().nullish(),
});

export const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ type: z.literal('summary_text'), text: z.string() })).default([]),
  content: z.array(z.looseObject({ type: z.literal('reasoning_text'), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

/** A call of a `custom` (freeform) tool (Codex's `exec`); its output has the function output's shape. */
export const customToolCallItemSchema = z.looseObject({
  type: z.literal('custom_tool_call'),
  call_id: z.string().min(1),
  name: z.string(),
  namespace: z.string().nullish(),
  input: z.string(),
});

/** One entry of `tools`: its `type` decides which schema reads the rest. */
export const toolEntrySchema = z.looseObject({ type: z.string().min(1) });

/** Codex's code mode: tools offered in the input (`role: developer`), read like `tools`. */
export const additionalToolsItemSchema = z.looseObject({
  type: z.literal('additional_tools'),
  tools: z.array(z.unknown()),
});

/** Any other item (`web_search_call`, `item_reference`, …): kept whole as a native part. */
export const otherItemSchema = z.looseObject({ type: z.string().min(1) });

export const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const jsonSchemaFormat = z.looseObject({
  type: z.literal('json_schema'),
  name: z.string().nullish(),
  schema: z.record(z.string(), z.unknown()),
  strict: z.boolean().nullish(),
  description: z.string().nullish(),
});

/** `text.format`, flat as in the native protocol. */
export const textFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  jsonSchemaFormat,
]);

/** The service's own `response_format` (Chat-style nesting), also accepted flat. */
export const responseFormatSchema = z.union([
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
      description: z.string().nullish(),
    }),
  }),
  jsonSchemaFormat,
]);

export const toolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
  // The interface also lists the Chat-style nesting.
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
  z.looseObject({ type: z.string().min(1) }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.unknown())]),
  instructions: z.string().nullish(),
  tools: z.array(toolEntrySchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_logprobs: z.int().min(0).max(20).nullish(),
  max_output_tokens: z.int().positive().nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  text: z.looseObject({ format: textFormatSchema.nullish() }).nullish(),
  response_format: responseFormatSchema.nullish(),
  stream: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  store: z.boolean().nullish(),
  include: z.array(z.string()).nullish(),
  previous_response_id: z.string().min(1).nullish(),
});
export type ResponsesRequestBody = z.infer<typeof responsesRequestSchema>;

/** Top-level fields the decoder maps into the IR; every other field goes to `extensions`. */
export const MAPPED_REQUEST_FIELDS: readonly string[] = [
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'temperature',
  'top_p',
  'top_logprobs',
  'max_output_tokens',
  'reasoning',
  'text',
  'response_format',
  'stream',
  'metadata',
  'user',
  'store',
  'previous_response_id',
];
