/**
 * Query parameters of the account listings, validated with zod; every error names its parameter.
 * Times (`from` inclusive, `to` exclusive) are ISO 8601 dates or date-times, or Unix seconds.
 */
import { z } from 'zod';
import { invalidRequestFrom } from '../auth/parse-body';
import { GatewayError } from '../errors/gateway-error';
import type { LedgerKind } from '../db/repositories/ledger';
import { PROTOCOLS } from '../ir/protocol';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../http/storable-text';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

const LEDGER_KINDS: readonly LedgerKind[] = ['topup', 'refund', 'adjustment', 'charge', 'hold', 'hold_release'];
/** What a billing transaction is (interface 2.7) when no `kind` is asked for: per-request charges and task holds only on demand. */
export const DEFAULT_TRANSACTION_KINDS: readonly LedgerKind[] = ['topup', 'refund', 'adjustment'];
/** `error`: failed requests are free, so they have no usage rows (their records are under /api/v1/me/requests). */
const USAGE_STATUSES = ['ok', 'aborted', 'error'] as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export const limit = z
  .string()
  .regex(/^\d+$/, { error: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, { error: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
      .max(MAX_PAGE_SIZE, { error: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }),
  )
  .default(DEFAULT_PAGE_SIZE);

export const time = z.string().transform((value, context) => {
  const ms = /^\d{1,12}$/.test(value) ? Number(value) * 1000 : ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    context.addIssue({ code: 'custom', message: 'must be an ISO 8601 date or date-time, or Unix seconds' });
    return z.NEVER;
  }
  return new Date(ms);
});

export const positiveId = z
  .string()
  .regex(/^\d{1,15}$/, { error: 'must be a positive integer' })
  .transform(Number)
  .pipe(z.number().int().min(1, { error: 'must be a positive integer' }));

export const timeRange = <T extends { from?: Date; to?: Date }>(query: T, context: z.RefinementCtx) => {
  if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
    context.addIssue({ code: 'custom', path: ['to'], message: 'must be later than from' });
  }
};

export const usageQuerySchema = z
  .object({
    limit,
    cursor: z.string().min(1).max(200).optional(),
    api_key_id: positiveId.optional(),
    model: z.string().min(1, { error: 'must not be empty' }).max(200).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE).optional(),
    protocol: z.enum(PROTOCOLS, { error: `must be one of ${PROTOCOLS.join(', ')}` }).optional(),
    status: z.enum(USAGE_STATUSES, { error: `must be one of ${USAGE_STATUSES.join(', ')}` }).optional(),
    from: time.optional(),
    to: time.optional(),
  })
  .superRefine(timeRange);

export type UsageQuery = z.infer<typeof usageQuerySchema>;

/** `GET /api/v1/me/usage/daily`: how many UTC days back, today included. */
export const seriesQuerySchema = z.object({
  days: z
    .string()
    .regex(/^\d+$/, { error: 'must be an integer from 1 to 90' })
    .transform(Number)
    .pipe(z.number().int().min(1, { error: 'must be an integer from 1 to 90' }).max(90, { error: 'must be an integer from 1 to 90' }))
    .default(30),
});

export const transactionsQuerySchema = z
  .object({
    limit,
    cursor: z.string().min(1).max(200).optional(),
    kind: z
      .string()
      .transform((value, context) => {
        const kinds = value
          .split(',')
          .map((kind) => kind.trim())
          .filter(Boolean);
        const unknown = kinds.filter((kind) => !(LEDGER_KINDS as readonly string[]).includes(kind));
        if (kinds.length === 0 || unknown.length > 0) {
          context.addIssue({ code: 'custom', message: `must be a comma-separated list of ${LEDGER_KINDS.join(', ')}` });
          return z.NEVER;
        }
        return kinds as LedgerKind[];
      })
      .optional(),
    from: time.optional(),
    to: time.optional(),
  })
  .superRefine(timeRange);

export type TransactionsQuery = z.infer<typeof transactionsQuerySchema>;

/**
 * Parses `req.query` (a repeated parameter is refused rather than silently picking one) into the
 * schema's output; throws a GatewayError naming the first bad parameter.
 */
export function parseQuery<Schema extends z.ZodType>(schema: Schema, query: unknown): z.infer<Schema> {
  const flat: Record<string, string> = {};
  if (query !== null && typeof query === 'object') {
    for (const [name, value] of Object.entries(query)) {
      if (typeof value !== 'string') {
        throw new GatewayError('invalid_request', `${name}: must be given once, as a plain value`, { param: name });
      }
      flat[name] = value;
    }
  }
  const parsed = schema.safeParse(flat);
  if (parsed.success) return parsed.data;
  throw invalidRequestFrom(parsed.error.issues[0], 'query');
}
