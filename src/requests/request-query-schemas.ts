/**
 * Query parameters of the request log listings and figures (issue 22). `status` is an outcome
 * (`ok`, `error`, `aborted`), an HTTP status (`429`) or a class (`4xx`); times (`since` inclusive,
 * `until` exclusive) as in the other listings.
 */
import { z } from 'zod';
import { limit, positiveId, time } from '../account/account-query-schemas';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../http/storable-text';

export type StatusFilter = { outcome: 'ok' | 'error' | 'aborted' } | { status: number } | { statusClass: number };

const status = z.string().transform((value, context): StatusFilter => {
  if (value === 'ok' || value === 'error' || value === 'aborted') return { outcome: value };
  if (/^[1-5][0-9]{2}$/.test(value)) return { status: Number(value) };
  if (/^[1-5]xx$/i.test(value)) return { statusClass: Number(value[0]) };
  context.addIssue({ code: 'custom', message: 'must be ok, error, aborted, an HTTP status such as 429, or a class such as 4xx' });
  return z.NEVER;
});

const text = z.string().min(1, { error: 'must not be empty' }).max(200).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

const since = <T extends { since?: Date; until?: Date }>(query: T, context: z.RefinementCtx) => {
  if (query.since && query.until && query.since.getTime() >= query.until.getTime()) {
    context.addIssue({ code: 'custom', path: ['until'], message: 'must be later than since' });
  }
};

const filters = {
  status: status.optional(),
  error_class: text.optional(),
  model: text.optional(),
  api_key_id: positiveId.optional(),
  protocol: z
    .string()
    .regex(/^[a-z-]{1,50}$/, { error: 'must be a protocol name such as chat or messages' })
    .optional(),
  upstream_account_id: positiveId.optional(),
  since: time.optional(),
  until: time.optional(),
};

export const requestsQuerySchema = z.object({ limit, cursor: z.string().min(1).max(300).optional(), ...filters }).superRefine(since);
export const operatorRequestsQuerySchema = z
  .object({ limit, cursor: z.string().min(1).max(300).optional(), account_id: positiveId.optional(), ...filters })
  .superRefine(since);

export type RequestsQuery = z.infer<typeof operatorRequestsQuerySchema>;

/** Figures: a window (default the last 24 hours, at most 31 days) and what to group by. */
export const statsQuerySchema = z
  .object({
    since: time.optional(),
    until: time.optional(),
    by: z.enum(['model', 'upstream_account'], { error: 'must be model or upstream_account' }).default('model'),
    account_id: positiveId.optional(),
  })
  .superRefine(since);

export type StatsQuery = z.infer<typeof statsQuerySchema>;
