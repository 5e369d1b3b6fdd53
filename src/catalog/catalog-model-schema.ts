/**
 * The shape of a catalog model at the edges (admin CLI, console, the `catalog_models` table), and
 * the rules a model must keep: protocols allowed by its family's row of the interface's family table
 * (INTERFACE.md, "Which protocol serves which model family"), image models in families 2 and 3,
 * video models in family 3, unique slugs and aliases.
 */
import { z } from 'zod';
import { PROTOCOLS, type Protocol } from '../ir/protocol';
import type { CatalogModel } from './model';

const credits = z.number().int().nonnegative();
const priceTable = z.record(z.string(), credits);
const slug = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, ".", "_", ":" and "-", at most 128');

export const catalogModelSchema = z.strictObject({
  id: slug,
  aliases: z.array(slug).optional(),
  familyNumber: z.number().int().min(1).max(8),
  family: z.string().min(1).max(64),
  ownedBy: z.string().min(1).max(64),
  kind: z.enum(['chat', 'image', 'video']),
  capabilities: z.array(
    z.enum([
      'text',
      'vision',
      'audio',
      'video',
      'tool_use',
      'streaming',
      'cache_control',
      'thinking',
      'json_schema',
      'logprobs',
      'image_gen',
      'video_gen',
    ]),
  ),
  contextWindow: z.number().int().nonnegative(),
  maxOutputTokens: z.number().int().nonnegative(),
  inputModalities: z.array(z.enum(['text', 'image', 'audio', 'video'])),
  outputModalities: z.array(z.enum(['text', 'image', 'audio', 'video'])),
  created: z.number().int().nonnegative(),
  nativeProtocols: z.array(z.enum(PROTOCOLS as [Protocol, ...Protocol[]])).min(1),
  protocols: z.array(z.enum(PROTOCOLS as [Protocol, ...Protocol[]])),
  upstreamModel: z.string().min(1).optional(),
  prices: z.strictObject({
    inputPerMillion: credits.optional(),
    outputPerMillion: credits.optional(),
    cacheReadPerMillion: credits.optional(),
    cacheWritePerMillion: credits.optional(),
    perImage: priceTable.optional(),
    perVideoSecond: priceTable.optional(),
  }),
  retired: z.boolean().optional(),
  fixedTemperature: z.number().optional(),
  video: z
    .strictObject({
      maxDurationSeconds: z.number().int().positive(),
      resolutions: z.array(z.string()),
      aspectRatios: z.array(z.string()),
      imageInput: z.boolean(),
    })
    .optional(),
  image: z.strictObject({ qualities: z.array(z.string()), editable: z.boolean() }).optional(),
});

/** The inbound protocols each family may be called with (the family table's columns 1–4). */
export const FAMILY_PROTOCOLS: Readonly<Record<number, readonly Protocol[]>> = {
  1: ['messages', 'responses', 'chat'],
  2: ['messages', 'responses', 'chat'],
  3: ['messages', 'responses', 'chat', 'generate-content'],
  4: ['messages', 'chat'],
  5: ['messages', 'chat'],
  6: ['chat'],
  7: ['chat'],
  8: ['chat'],
};
const IMAGE_FAMILIES = [2, 3];
const VIDEO_FAMILIES = [3];

export class CatalogValidationError extends Error {}

/** Parses and checks one model; throws CatalogValidationError naming every problem. */
export function parseCatalogModel(input: unknown): CatalogModel {
  const parsed = catalogModelSchema.safeParse(input);
  if (!parsed.success) {
    throw new CatalogValidationError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'model'}: ${issue.message}`).join('; '));
  }
  const model = parsed.data as CatalogModel;
  const problems: string[] = [];
  const allowed = FAMILY_PROTOCOLS[model.familyNumber] ?? [];
  const forbidden = model.protocols.filter((p) => !allowed.includes(p));
  if (forbidden.length > 0)
    problems.push(`protocols: family ${model.familyNumber} cannot be called with ${forbidden.join(', ')} (allowed: ${allowed.join(', ')})`);
  if (model.kind === 'chat' && model.protocols.length === 0) problems.push('protocols: a chat model needs at least one');
  if (model.kind !== 'chat' && model.protocols.length > 0)
    problems.push(`protocols: ${model.kind} models are called through their own endpoints, not inference protocols`);
  if (model.kind === 'image' && !IMAGE_FAMILIES.includes(model.familyNumber))
    problems.push(`kind: image models belong to families ${IMAGE_FAMILIES.join(', ')}`);
  if (model.kind === 'video' && !VIDEO_FAMILIES.includes(model.familyNumber))
    problems.push(`kind: video models belong to family ${VIDEO_FAMILIES.join(', ')}`);
  if (model.kind === 'video' && !model.video) problems.push('video: required for a video model');
  if (model.kind === 'image' && !model.image) problems.push('image: required for an image model');
  if ((model.aliases ?? []).includes(model.id)) problems.push('aliases: a model cannot be its own alias');
  if (problems.length > 0) throw new CatalogValidationError(`model ${model.id}: ${problems.join('; ')}`);
  return model;
}

/** Slugs and aliases are one namespace: each names at most one model. */
export function checkUniqueNames(models: readonly CatalogModel[]): void {
  const owner = new Map<string, string>();
  for (const model of models) {
    for (const name of [model.id, ...(model.aliases ?? [])]) {
      const previous = owner.get(name);
      if (previous !== undefined && previous !== model.id) throw new CatalogValidationError(`${name} already names model ${previous}`);
      owner.set(name, model.id);
    }
  }
}
