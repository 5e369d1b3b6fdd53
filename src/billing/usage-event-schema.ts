/**
 * The worker's edge: a usage event from the stream is validated before it can touch money. A payload
 * that fails here is a producer bug, so the event goes to the dead-letter stream instead of being retried.
 */
import { z } from 'zod';
import type { UsageEvent } from './usage-event';

const count = z.number().int().nonnegative().refine(Number.isSafeInteger, 'must be a safe integer');
const id = z.number().int().positive().refine(Number.isSafeInteger, 'must be a safe integer');

export const usageEventSchema = z.object({
  requestId: z.string().min(1).max(200),
  accountId: id,
  apiKeyId: id.nullable(),
  model: z.string().min(1).max(200),
  protocol: z.string().min(1).max(50),
  upstreamAccountId: id.nullable(),
  promptTokens: count,
  completionTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  reasoningTokens: count,
  images: count,
  videoSeconds: count,
  credits: count,
  stream: z.boolean(),
  status: z.enum(['ok', 'aborted']),
  startedAt: count,
}) satisfies z.ZodType<UsageEvent>;

/** Returns the event, or a message naming the first bad field. */
export function parseUsageEvent(value: unknown): { event: UsageEvent } | { error: string } {
  const parsed = usageEventSchema.safeParse(value);
  if (parsed.success) return { event: parsed.data };
  const issue = parsed.error.issues[0];
  return { error: `invalid usage event: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown'}` };
}
