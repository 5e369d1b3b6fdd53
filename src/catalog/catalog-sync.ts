/**
 * Keeps a process's in-memory Catalog equal to the `catalog_models` table: seeds the table from the
 * default catalog on first start, loads it, and reloads it whenever a change is announced on
 * `catalogChangedChannel` (and every `refreshMs` in case an announcement was missed: pub/sub does
 * not queue messages for a reconnecting subscriber). `Catalog.replace` swaps the models in place, so
 * every holder of `deps.catalog` sees the change with no restart.
 */
import type { Dependencies } from '../dependencies';
import { loadCatalogModels, seedCatalogIfEmpty } from './catalog-store';
import type { CatalogModel } from './model';

export interface CatalogSync {
  /** Reloads now (tests and operators); resolves when the catalog holds the table's content. */
  reload(): Promise<void>;
  close(): void;
}

export async function startCatalogSync(
  deps: Pick<Dependencies, 'db' | 'subscriber' | 'redisKeys' | 'catalog' | 'logger'>,
  options: { defaults: readonly CatalogModel[]; refreshMs?: number },
): Promise<CatalogSync> {
  const logger = deps.logger.child({ component: 'catalog-sync' });
  if (await seedCatalogIfEmpty(deps.db, options.defaults))
    logger.info({ models: options.defaults.length }, 'catalog seeded from the default catalog');
  let loading: Promise<void> | undefined;
  let again = false;
  const reload = (): Promise<void> => {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        deps.catalog.replace(await loadCatalogModels(deps.db));
      } while (again);
    })().finally(() => {
      loading = undefined;
    });
    return loading;
  };
  await reload();

  const channel = deps.redisKeys.catalogChangedChannel();
  const onMessage = (from: string) => {
    if (from !== channel) return;
    reload().catch((error: unknown) => logger.warn({ err: error }, 'catalog reload failed; keeping the previous catalog'));
  };
  deps.subscriber.on('message', onMessage);
  await deps.subscriber.subscribe(channel);
  const timer = setInterval(() => onMessage(channel), options.refreshMs ?? 30_000);
  timer.unref();
  return {
    reload,
    close() {
      clearInterval(timer);
      deps.subscriber.off('message', onMessage);
      void deps.subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}
