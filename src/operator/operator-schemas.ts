/** Request bodies of the operator API, validated with zod (money in USD, as the key API takes it). */
import { z } from 'zod';
import { PROTOCOLS } from '../ir/protocol';
import { PROVIDER_NAMES } from '../upstream/provider-presets';

const TIERS = ['free', 'pro', 'max', 'enterprise'] as const;
const usd = z
  .number()
  .finite()
  .refine((value) => Math.abs(value) <= 1_000_000_000, { error: 'must be at most 1,000,000,000 USD' });
const name = z.string().trim().min(1, { error: 'must not be empty' }).max(200);
const concurrency = z.number().int().min(1).max(100_000);

export const createAccountSchema = z
  .object({
    name,
    tier: z.enum(TIERS),
    concurrency_cap: concurrency.nullable().optional(),
    organization: z.boolean().optional(),
  })
  .strict();

export const updateAccountSchema = z
  .object({
    tier: z.enum(TIERS).optional(),
    concurrency_cap: concurrency.nullable().optional(),
  })
  .strict();

/** A top-up or a refund adds credits; an adjustment is signed. Each carries the reason into the ledger's description. */
export const ledgerEntrySchema = z
  .object({
    kind: z.enum(['topup', 'refund', 'adjustment']),
    amount: usd.refine((value) => Math.round(value * 1_000_000) !== 0, { error: 'must not be zero' }),
    reason: z.string().trim().min(1, { error: 'a reason is required' }).max(500),
  })
  .strict()
  .refine((body) => body.kind === 'adjustment' || body.amount > 0, { path: ['amount'], error: 'a top-up or refund must be positive' });

export const createGroupSchema = z
  .object({
    name,
    family: z.string().trim().min(1).max(100).nullable().optional(),
    /** Default public; private: only the accounts granted the group may use it (issue 21). */
    visibility: z.enum(['public', 'private'], { error: 'must be public or private' }).optional(),
  })
  .strict();

const baseUrl = z
  .string()
  .trim()
  .url({ error: 'must be an http(s) URL' })
  .refine((value) => /^https?:\/\//.test(value), { error: 'must be an http(s) URL' });
const models = z.array(z.string().trim().min(1).max(200)).min(1, { error: 'name at least one model, or *' }).max(500);

/** A provider preset, or a protocol alone; the base URL defaults to the preset's. `verify: false` skips the probe. */
export const createUpstreamSchema = z
  .object({
    group_id: z.number().int().positive(),
    name: name.optional(),
    provider: z.enum(PROVIDER_NAMES as [string, ...string[]]).optional(),
    protocol: z.enum(PROTOCOLS).optional(),
    base_url: baseUrl.optional(),
    api_version: z.string().trim().min(1).max(40).optional(),
    api_key: z.string().min(1).max(4096),
    models,
    priority: z.number().int().min(-1000).max(1000).optional(),
    weight: z.number().int().min(1).max(1000).optional(),
    verify: z.boolean().optional(),
  })
  .strict()
  .refine((body) => body.provider !== undefined || body.protocol !== undefined, {
    path: ['provider'],
    error: 'name a provider or a protocol',
  });

export const updateUpstreamSchema = z
  .object({
    name: name.optional(),
    base_url: baseUrl.optional(),
    api_version: z.string().trim().min(1).max(40).optional(),
    api_key: z.string().min(1).max(4096).optional(),
    models: models.optional(),
    priority: z.number().int().min(-1000).max(1000).optional(),
    weight: z.number().int().min(1).max(1000).optional(),
    status: z.enum(['active', 'disabled']).optional(),
    verify: z.boolean().optional(),
  })
  .strict();
