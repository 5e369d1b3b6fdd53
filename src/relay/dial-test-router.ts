/**
 * `POST /api/v1/dial/test` (cookie auth): checks that a key, its group and a model line up by sending
 * a minimal real request through the same routing and translation path. Never billed. Answers with
 * per-stage results: key, group, model, protocol, upstream account, upstream status and latency.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { createCallerAuthentication } from '../auth/authenticate-caller';
import { createRequireSession, managementPrincipal } from '../auth/management-auth';
import { invalidRequestFrom } from '../auth/parse-body';
import { findKeySecret } from '../db/repositories/api-keys';
import type { Dependencies } from '../dependencies';
import { isProtocol, type Protocol } from '../ir/protocol';
import { CODECS } from './codec-registry';
import { createCodecContext } from './codec-context';
import { dialUpstream, pingPlan } from './dial-upstream';
import type { RelayServices } from './relay-services';
import { resolveModel } from './resolve-model';
import { refusalWithoutCandidates } from '../routing/explain-refusal';

const bodySchema = z.object({
  model: z.string().min(1),
  protocol: z.string().min(1),
  keyId: z.coerce.number().int().positive(),
});

interface Stage {
  stage: string;
  ok: boolean;
  detail: string;
  [extra: string]: unknown;
}

/** Each protocol by its name and its codec's aliases (lower case). */
const PROTOCOL_ALIASES = new Map<string, Protocol>(
  Object.values(CODECS).flatMap((codec) => [codec.protocol, ...codec.aliases].map((name) => [name, codec.protocol] as const)),
);

export function createDialTestRouter(deps: Dependencies, services: RelayServices): Router {
  const router = Router();
  const context = createCodecContext(deps.clock);
  const caller = createCallerAuthentication(services.authenticator, deps.config.trustedProxies);
  router.post('/api/v1/dial/test', createRequireSession(deps), async (req, res) => {
    const parsed = bodySchema.safeParse(req.body);
    if (!parsed.success) throw invalidRequestFrom(parsed.error.issues[0], 'body');
    const principal = managementPrincipal(res);
    const stages: Stage[] = [];
    const answer = (ok: boolean) => res.status(200).json({ ok, stages });

    const stored = await findKeySecret(deps.db, parsed.data.keyId);
    if (!stored || stored.accountId !== principal.accountId) {
      stages.push({ stage: 'key', ok: false, detail: `key ${parsed.data.keyId} not found` });
      return answer(false);
    }
    let key: AuthenticatedKey;
    try {
      key = await caller.authenticateSecret(deps.crypto.decrypt(stored.secretEncrypted), req);
      stages.push({ stage: 'key', ok: true, detail: `key ${key.keyId} is ${key.status}` });
    } catch (error) {
      stages.push({ stage: 'key', ok: false, detail: (error as Error).message });
      return answer(false);
    }
    const protocol = PROTOCOL_ALIASES.get(parsed.data.protocol.toLowerCase());
    if (!protocol || !isProtocol(protocol)) {
      stages.push({
        stage: 'protocol',
        ok: false,
        detail: `unknown protocol ${parsed.data.protocol}; use messages, responses, chat or generate-content`,
      });
      return answer(false);
    }
    const model = deps.catalog.find(parsed.data.model);
    if (!model || model.retired) {
      stages.push({ stage: 'model', ok: false, detail: `model ${parsed.data.model} is not in the catalog` });
      return answer(false);
    }
    stages.push({ stage: 'model', ok: true, detail: `model ${model.id} (family ${model.family})` });
    if (key.groupFamily !== null && key.groupFamily !== model.family) {
      stages.push({
        stage: 'group',
        ok: false,
        detail: `group ${key.groupName} routes only ${key.groupFamily}, not ${model.id}`,
        group: key.groupName,
      });
      return answer(false);
    }
    stages.push({
      stage: 'group',
      ok: true,
      detail: `group ${key.groupName} routes ${key.groupFamily ?? 'every family'}`,
      group: key.groupName,
    });
    try {
      resolveModel(deps.catalog, model.id, protocol, key);
      stages.push({ stage: 'protocol', ok: true, detail: `${protocol} is available for ${model.id}` });
    } catch (error) {
      stages.push({ stage: 'protocol', ok: false, detail: (error as Error).message });
      return answer(false);
    }
    const { accounts, skipped } = await services.upstreams.candidates(key.groupId, model.id, model.nativeProtocols);
    const account = [...accounts.filter((a) => a.protocol === protocol), ...accounts][0];
    if (!account) {
      stages.push({
        stage: 'upstream_account',
        ok: false,
        detail: refusalWithoutCandidates({ groupName: key.groupName, model: model.id }, skipped, deps.clock.now()).message,
      });
      return answer(false);
    }
    stages.push({
      stage: 'upstream_account',
      ok: true,
      detail: `account ${account.id} (${account.name}, ${account.protocol})`,
      upstream_account_id: account.id,
    });
    const outcome = await dialUpstream(services.upstreamClient, pingPlan(model, protocol, context), account);
    stages.push({
      stage: 'upstream',
      ok: outcome.ok,
      detail: outcome.detail,
      status: outcome.status ?? undefined,
      latency_ms: outcome.latencyMs,
    });
    return answer(outcome.ok);
  });
  return router;
}
