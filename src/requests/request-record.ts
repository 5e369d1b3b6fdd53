/**
 * One request as the request log keeps it (issue 22): produced by the API process when the response
 * closes, carried by the request-log stream, written to `request_records` by the request-log worker.
 * Never billed: the usage event, not this record, is what charges a call.
 */
import { z } from 'zod';

export type RequestOutcome = 'ok' | 'error' | 'aborted';

export interface RequestBodies {
  /** The request body, redacted, JSON text (possibly cut at the cap). */
  request: string | null;
  /** The answer: the JSON body, or a streamed answer assembled (or its raw frames when it could not be). */
  response: string | null;
  /** Streamed answers: how many events carried it. */
  streamEvents: number | null;
  truncated: boolean;
}

export interface RequestRecord {
  requestId: string;
  accountId: number;
  apiKeyId: number | null;
  protocol: string;
  model: string | null;
  upstreamAccountId: number | null;
  status: number;
  outcome: RequestOutcome;
  errorClass: string | null;
  durationMs: number;
  ttfbMs: number | null;
  inputTokens: number;
  outputTokens: number;
  costCredits: number;
  stream: boolean;
  replayed: boolean;
  warnings: string[];
  /** Unix ms when the request arrived. */
  startedAt: number;
  /**
   * Built when the answer's last byte was about to leave, appended before it did (src/requests/records-before-end.ts);
   * the record built when the response closes replaces it. Absent (false) on that final record.
   */
  provisional?: boolean;
  bodies?: RequestBodies;
}

const count = z.number().int().nonnegative().refine(Number.isSafeInteger, 'must be a safe integer');
const id = z.number().int().positive().refine(Number.isSafeInteger, 'must be a safe integer');

export const requestRecordSchema = z.object({
  requestId: z.string().min(1).max(200),
  accountId: id,
  apiKeyId: id.nullable(),
  protocol: z.string().min(1).max(50),
  model: z.string().max(200).nullable(),
  upstreamAccountId: id.nullable(),
  status: z.number().int().min(100).max(599),
  outcome: z.enum(['ok', 'error', 'aborted']),
  errorClass: z.string().max(100).nullable(),
  durationMs: count,
  ttfbMs: count.nullable(),
  inputTokens: count,
  outputTokens: count,
  costCredits: count,
  stream: z.boolean(),
  replayed: z.boolean(),
  warnings: z.array(z.string().max(200)).max(100),
  startedAt: count,
  provisional: z.boolean().optional(),
  bodies: z
    .object({
      request: z.string().nullable(),
      response: z.string().nullable(),
      streamEvents: count.nullable(),
      truncated: z.boolean(),
    })
    .optional(),
}) satisfies z.ZodType<RequestRecord>;

/** Returns the record, or a message naming the first bad field. */
export function parseRequestRecord(value: unknown): { record: RequestRecord } | { error: string } {
  const parsed = requestRecordSchema.safeParse(value);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0];
  return { error: `invalid request record: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown'}` };
}
