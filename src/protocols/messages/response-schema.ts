/** What a Messages provider answers, read leniently: every field may be missing or null. */
import { z } from 'zod';

export const upstreamBlockSchema = z.looseObject({ type: z.string() });

export const upstreamResponseSchema = z.looseObject({
  id: z.string().nullish(),
  type: z.string().nullish(),
  model: z.string().nullish(),
  content: z.array(upstreamBlockSchema).nullish(),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  stop_details: z.looseObject({ explanation: z.string().nullish() }).nullish(),
  usage: z.looseObject({}).nullish(),
});

export type UpstreamResponse = z.infer<typeof upstreamResponseSchema>;
export type UpstreamBlock = z.infer<typeof upstreamBlockSchema>;
