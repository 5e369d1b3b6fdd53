/**
 * Request bodies of key management (interface 2.1), validated with zod. USD amounts become integer
 * credits here (1 USD = 1,000,000 credits, rounded to the nearest credit) and never travel as floats.
 */
import { z } from 'zod';
import { parseCidr } from '../auth/ip-rules';
import { validateCustomKey } from '../auth/key-secret';
import { MODEL_PATTERN } from '../auth/model-allowlist';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../http/storable-text';

const MAX_USD = 1_000_000_000;
const MAX_EXPIRY_DAYS = 36_500;
const MAX_IP_RULES = 256;

/** Numbers, or numeric strings (form posts and some SDKs send those). */
const usd = z
  .preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value),
    z.number({ error: 'must be a number of USD' }).min(0, 'must be 0 (unlimited) or more').max(MAX_USD, `must be at most ${MAX_USD}`),
  )
  .transform((value) => Math.round(value * 1_000_000));

const cidrList = z
  .array(
    z.string().refine((entry) => parseCidr(entry) !== undefined, { message: 'must be an IPv4 or IPv6 address or CIDR block' }),
    { error: 'must be an array of CIDR strings' },
  )
  .max(MAX_IP_RULES, `at most ${MAX_IP_RULES} entries`)
  .transform((entries) => [...new Set(entries.map((entry) => entry.trim()))]);

const name = z
  .string({ error: 'is required and must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

const expiresInDays = z
  .number({ error: 'must be an integer number of days' })
  .int('must be an integer number of days')
  .min(1, 'must be at least 1')
  .max(MAX_EXPIRY_DAYS, `must be at most ${MAX_EXPIRY_DAYS}`);

const customKey = z.string({ error: 'must be a string' }).superRefine((value, context) => {
  const problem = validateCustomKey(value);
  if (problem) context.addIssue({ code: 'custom', message: problem.replace(/^custom_key /, '') });
});

const MAX_MODEL_PATTERNS = 200;

/** Exact slugs or `prefix*` patterns; empty allows every model (issue 21). */
const allowedModels = z
  .array(
    z
      .string({ error: 'must be a model slug or a prefix* pattern' })
      .trim()
      .regex(MODEL_PATTERN, { error: 'must be a model slug or a prefix* pattern (letters, digits, . _ : / @ -, one trailing *)' }),
    { error: 'must be an array of model slugs or prefix* patterns' },
  )
  .max(MAX_MODEL_PATTERNS, `at most ${MAX_MODEL_PATTERNS} entries`)
  .transform((entries) => [...new Set(entries)]);

const groupReference = z.union([z.number().int().positive(), z.string().trim().min(1).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)], {
  error: 'is required: a routing group id or name',
});

export const createKeySchema = z.object({
  name,
  group_id: groupReference,
  quota: usd.optional(),
  expires_in_days: expiresInDays.nullish(),
  rate_limit_5h: usd.optional(),
  rate_limit_1d: usd.optional(),
  rate_limit_7d: usd.optional(),
  ip_whitelist: cidrList.optional(),
  ip_blacklist: cidrList.optional(),
  allowed_models: allowedModels.optional(),
  custom_key: customKey.optional(),
});

export const updateKeySchema = z.object({
  name: name.optional(),
  quota: usd.optional(),
  rate_limit_5h: usd.optional(),
  rate_limit_1d: usd.optional(),
  rate_limit_7d: usd.optional(),
  ip_whitelist: cidrList.optional(),
  ip_blacklist: cidrList.optional(),
  /** Counted from now; null removes the expiry. */
  expires_in_days: expiresInDays.nullable().optional(),
  allowed_models: allowedModels.optional(),
  status: z.enum(['active', 'disabled', 'revoked'], { error: 'must be active, disabled or revoked' }).optional(),
  /** Moves the key to another routing group the account may use. */
  group_id: groupReference.optional(),
  custom_key: z.never({ error: 'cannot be set here; use the rotate operation' }).optional(),
});

export const rotateKeySchema = z.object({
  custom_key: customKey.optional(),
});

export type CreateKeyInput = z.output<typeof createKeySchema>;
export type UpdateKeyInput = z.output<typeof updateKeySchema>;
