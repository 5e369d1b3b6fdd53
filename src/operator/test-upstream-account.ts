/**
 * The operator's test button (and the admin CLI's `upstream test`): first the verification probe
 * that runs before an account is saved (credential, base URL, models listed; probe-upstream.ts),
 * recorded as the account's last check; when it passes, one minimal real model call to one upstream account (its first
 * model, or for `*` the first catalog model its protocol serves natively), disabled accounts
 * included so an account can be checked before it is enabled. Never billed; the answer holds no
 * credential and no URL.
 */
import type { CatalogModel } from '../catalog/model';
import { findUpstreamAccount } from '../db/repositories/upstream-accounts';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { registerSecret } from '../errors/scrub-secrets';
import type { Protocol } from '../ir/protocol';
import { createCodecContext } from '../relay/codec-context';
import { dialUpstream, pingPlan } from '../relay/dial-upstream';
import type { RelayServices } from '../relay/relay-services';
import { upstreamAccountOf } from '../upstream/upstream-account';
import { checkStoredUpstream } from './save-upstream';

function testModel(deps: Dependencies, protocol: Protocol, models: string[]): CatalogModel | undefined {
  const first = models[0];
  if (first !== undefined && first !== '*') return deps.catalog.find(first);
  return deps.catalog.active().find((m) => m.kind === 'chat' && m.nativeProtocols.includes(protocol));
}

export async function testUpstreamAccount(
  deps: Dependencies,
  services: Pick<RelayServices, 'upstreamClient'>,
  id: number,
): Promise<Record<string, unknown>> {
  const row = await findUpstreamAccount<Protocol>(deps.db, id);
  if (!row) throw new GatewayError('not_found', 'upstream account not found');
  const check = await checkStoredUpstream({ ...deps, upstreamClient: services.upstreamClient }, id);
  // A configuration fault (credential, base URL, network, models) is the answer; a provider failing
  // (429, 5xx) is told by the model call below, with its status and error class.
  if (check && !check.ok && check.cause !== 'upstream_error') {
    return {
      object: 'upstream_test',
      id,
      model: null,
      protocol: row.protocol,
      ok: false,
      reachable: check.cause !== 'unreachable',
      http_status: null,
      latency_ms: 0,
      error_class: check.cause,
      detail: check.message,
      verification: check,
    };
  }
  const model = testModel(deps, row.protocol, row.models);
  if (!model)
    throw new GatewayError('invalid_request', `upstream account ${id} serves no model of the catalog (models: ${row.models.join(', ')})`);
  const credential = deps.crypto.decrypt(row.credentialEncrypted);
  registerSecret(credential);
  const account = upstreamAccountOf(row, credential);
  const outcome = await dialUpstream(services.upstreamClient, pingPlan(model, row.protocol, createCodecContext(deps.clock)), account);
  return {
    object: 'upstream_test',
    id,
    model: model.id,
    protocol: row.protocol,
    ok: outcome.ok,
    reachable: outcome.status !== null,
    http_status: outcome.status,
    latency_ms: outcome.latencyMs,
    error_class: outcome.errorClass,
    detail: outcome.detail,
    verification: check,
  };
}
