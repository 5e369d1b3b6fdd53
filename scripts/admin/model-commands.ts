/** `model …`: the catalog as operator data (scripts/admin-model.ts does the work). */
import { ModelUsageError, runModelCommand } from '../admin-model';
import { UsageError, type AdminCommand, type FlagSpec } from './cli';

function modelCommand(sub: string, summary: string, flags: Record<string, FlagSpec> = {}, notes?: string[]): AdminCommand {
  return {
    name: `model ${sub}`,
    summary,
    flags,
    notes,
    // Every model command but the listing changes the catalog.
    audit: sub === 'list' ? undefined : { action: `catalog.${sub}`, targetType: 'catalog_model' },
    async run(context, input) {
      try {
        await runModelCommand(
          sub,
          input.flags,
          { db: await context.db(), redis: context.redis(), redisKeys: context.redisKeys() },
          (result, human) => context.print(result, human),
        );
      } catch (error) {
        if (error instanceof ModelUsageError) throw new UsageError(`model ${sub}: ${error.message}`);
        throw error;
      }
    },
  };
}

const id: FlagSpec = { value: 'ID', required: true, help: 'the model id (slug)' };

export const MODEL_COMMANDS: AdminCommand[] = [
  modelCommand('list', 'list the catalog (retired models flagged)'),
  modelCommand('add', 'add a model to the catalog', {
    definition: { value: 'JSON', help: 'the model as JSON (the shape of `model list --json`)' },
    file: { value: 'PATH', help: 'read the definition from a file' },
  }),
  modelCommand('update', 'change fields of a model (prices merged field by field)', {
    id,
    set: { value: 'JSON', required: true, help: 'the fields to change' },
  }),
  modelCommand('retire', 'retire a model (or --restore it)', { id, restore: { help: 'bring a retired model back' } }),
  modelCommand('alias', 'add (or --remove) another name of a model', {
    id,
    alias: { value: 'NAME', required: true, help: 'the other name' },
    remove: { help: 'remove the alias' },
  }),
];
