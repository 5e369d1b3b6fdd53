/**
 * `npm run admin -- model <list|add|update|retire|alias> … [--json]`: the catalog as operator data.
 *   model list                                        → {models: [...]} (retired included, flagged)
 *   model add --definition JSON | --file model.json   → {model}   (the CatalogModel shape, see src/catalog/model.ts)
 *   model update --id ID --set JSON                   → {model}   (fields merged; `prices` merged field by field)
 *   model retire --id ID [--restore]                  → {model}
 *   model alias --id ID --alias NAME [--remove]       → {model}
 * Every change reaches the running API processes within moments (pub/sub); no restart.
 */
import { readFileSync } from 'node:fs';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { CatalogValidationError } from '../src/catalog/catalog-model-schema';
import { createCatalogService } from '../src/catalog/catalog-service';
import { seedCatalogIfEmpty } from '../src/catalog/catalog-store';
import { DEFAULT_CATALOG } from '../src/catalog/default-catalog';
import type { RedisKeys } from '../src/redis/keys';

export class ModelUsageError extends Error {}

type Flags = Record<string, string | true>;

function text(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new ModelUsageError(`--${name} is required`);
  return value;
}

function json(source: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new ModelUsageError(`${what} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ModelUsageError(`${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

export async function runModelCommand(
  sub: string,
  flags: Flags,
  deps: { db: Pool; redis: Redis; redisKeys: RedisKeys },
  print: (result: Record<string, unknown>, human: string) => void,
): Promise<void> {
  await seedCatalogIfEmpty(deps.db, DEFAULT_CATALOG);
  const service = createCatalogService(deps);
  try {
    switch (sub) {
      case 'list': {
        const models = await service.list();
        print(
          { models },
          models
            .map(
              (m) =>
                `${m.id}${m.retired ? ' (retired)' : ''}  family ${m.familyNumber}  ${m.protocols.join(',') || m.kind}${m.aliases?.length ? `  aliases: ${m.aliases.join(', ')}` : ''}`,
            )
            .join('\n'),
        );
        return;
      }
      case 'add': {
        const source = typeof flags.file === 'string' ? readFileSync(flags.file, 'utf8') : text(flags, 'definition');
        const model = await service.add(json(source, 'the model definition'));
        print({ model }, `model ${model.id} added`);
        return;
      }
      case 'update': {
        const model = await service.update(text(flags, 'id'), json(text(flags, 'set'), '--set'));
        print({ model }, `model ${model.id} updated`);
        return;
      }
      case 'retire': {
        const model = await service.retire(text(flags, 'id'), flags.restore !== true);
        print({ model }, `model ${model.id} ${model.retired ? 'retired' : 'restored'}`);
        return;
      }
      case 'alias': {
        const model = await service.alias(text(flags, 'id'), text(flags, 'alias'), flags.remove === true);
        print({ model }, `model ${model.id} aliases: ${(model.aliases ?? []).join(', ') || 'none'}`);
        return;
      }
      default:
        throw new ModelUsageError(`unknown command "model ${sub}"; use list, add, update, retire or alias`);
    }
  } catch (error) {
    if (error instanceof CatalogValidationError) throw new ModelUsageError(error.message);
    throw error;
  }
}
