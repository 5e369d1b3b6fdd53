/**
 * Lenient zod schemas of what a Responses provider sends back (complete bodies and stream events).
 * Everything is `.nullish()`: providers (OpenAI, Azure, compatible servers) differ in what they fill.
 */
import { z } from 'zod';

export const outputContentSchema = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  refusal: z.string().nullish(),
});

export const outputItemSchema = z.looseObject({
  type: z.string(),
  id: z.string().nullish(),
  status: z.string().nullish(),
  // message
  role: z.string().nullish(),
  content: z.array(z.unknown()).nullish(),
  // function_call
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  arguments: z.string().nullish(),
  // reasoning
  summary: z.array(z.looseObject({ type: z.string().nullish(), text: z.string().nullish() })).nullish(),
  encrypted_content: z.string().nullish(),
});
export type OutputItem = z.infer<typeof outputItemSchema>;

export const responseBodySchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created_at: z.number().nullish(),
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  output: z.array(z.unknown()).nullish(),
  usage: z.unknown().optional(),
});
export type ResponseBody = z.infer<typeof responseBodySchema>;

/** The fields of stream events the decoder reads; each event type uses a subset. */
export const streamEventSchema = z.looseObject({
  type: z.string(),
  response: z.unknown().optional(),
  item: z.unknown().optional(),
  item_id: z.string().nullish(),
  output_index: z.number().nullish(),
  content_index: z.number().nullish(),
  summary_index: z.number().nullish(),
  part: z.looseObject({ type: z.string().nullish(), text: z.string().nullish(), refusal: z.string().nullish() }).nullish(),
  delta: z.string().nullish(),
  text: z.string().nullish(),
  refusal: z.string().nullish(),
  arguments: z.string().nullish(),
  code: z.string().nullish(),
  message: z.string().nullish(),
  error: z.unknown().optional(),
});
export type StreamEventBody = z.infer<typeof streamEventSchema>;
