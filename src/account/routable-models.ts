/**
 * Which catalog models an account can route right now (pure): a model counts when one of the
 * account's usable keys is in a group that routes its family (and its allowlist admits the model), and that group has an active upstream
 * account serving the model on one of its native protocols; the same rule the relay applies.
 * Upstream cooldowns (momentary) are not counted here.
 */
import type { Catalog } from '../catalog/catalog';
import type { CatalogModel } from '../catalog/model';
import type { Protocol } from '../ir/protocol';

export interface RoutingGroupView {
  id: number;
  name: string;
  /** Null: the group routes every family. */
  family: string | null;
  upstreams: Array<{ protocol: Protocol; models: string[] }>;
  /** Whether one of the account's keys in the group may call the model (their allowlists); absent: every model. */
  allows?: (modelId: string) => boolean;
}

export interface RoutableModel {
  model: CatalogModel;
  /** Names of the account's groups that route it. */
  groups: string[];
}

export function routableModels(catalog: Catalog, groups: readonly RoutingGroupView[]): RoutableModel[] {
  const routable: RoutableModel[] = [];
  for (const model of catalog.active()) {
    const names = groups
      .filter(
        (group) =>
          (group.family === null || group.family === model.family) &&
          (group.allows?.(model.id) ?? true) &&
          group.upstreams.some(
            (upstream) =>
              model.nativeProtocols.includes(upstream.protocol) && (upstream.models.includes(model.id) || upstream.models.includes('*')),
          ),
      )
      .map((group) => group.name);
    if (names.length > 0) routable.push({ model, groups: [...new Set(names)].sort() });
  }
  return routable;
}
