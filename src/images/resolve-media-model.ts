/**
 * Catalog and routing checks for the media endpoints: unknown or retired slug → 400
 * unsupported_model; a model of another kind (a chat model on the images endpoint) → 400
 * invalid_request naming `model`; a model the key's group cannot route → 503 no available account.
 */
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { Catalog } from '../catalog/catalog';
import type { CatalogModel, ModelKind } from '../catalog/model';
import { GatewayError } from '../errors/gateway-error';
import { refusalWithoutCandidates } from '../routing/explain-refusal';
import type { UpstreamAccount } from '../upstream/upstream-account';
import type { UpstreamDirectory } from '../upstream/upstream-directory';

const ENDPOINT_FOR_KIND: Record<ModelKind, string> = {
  chat: '/v1/chat/completions (or another text endpoint)',
  image: '/v1/images/generations or /v1/tasks/submit',
  video: '/v1/tasks/submit',
};

export function resolveMediaModel(catalog: Catalog, slug: string, kinds: readonly ModelKind[], endpoint: string): CatalogModel {
  const model = catalog.find(slug);
  if (!model || model.retired) {
    throw new GatewayError(
      'unsupported_model',
      model ? `model ${slug} is retired` : `model ${slug} is not supported; GET /v1/models lists the models`,
      { param: 'model' },
    );
  }
  if (!kinds.includes(model.kind)) {
    throw new GatewayError(
      'invalid_request',
      `model: ${slug} is a ${model.kind} model and cannot be used on ${endpoint}; use ${ENDPOINT_FOR_KIND[model.kind]}`,
      { param: 'model' },
    );
  }
  return model;
}

export type RoutingGroup = Pick<AuthenticatedKey, 'groupId' | 'groupName' | 'groupFamily'>;

/** The group's accounts that serve the model on its native protocol, in failover order; none → 503. */
export async function routeMediaModel(upstreams: UpstreamDirectory, key: RoutingGroup, model: CatalogModel): Promise<UpstreamAccount[]> {
  if (key.groupFamily !== null && key.groupFamily !== model.family) {
    throw new GatewayError('no_available_account', `no available account: group ${key.groupName} does not route model ${model.id}`);
  }
  const { accounts, skipped } = await upstreams.candidates(key.groupId, model.id, model.nativeProtocols);
  if (accounts.length === 0) throw refusalWithoutCandidates({ groupName: key.groupName, model: model.id }, skipped, Date.now());
  return accounts;
}
