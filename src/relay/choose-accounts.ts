/**
 * The accounts one inference request may try, in order, and the record of what became of each:
 * the group's candidates (priority, weight, health), same-protocol first so pass-through is tried
 * before translation, and the account the conversation last ran on (session affinity, for the
 * providers' prompt caches) moved to the front while it is healthy. With no candidate at all the
 * request is refused here, saying why. The relay reports every attempt back (`failed`, `served`);
 * the account that served becomes the session's (so failover moves the session), `refusal`
 * explains a request no account served, and `report` logs the decision chain for operators (and
 * stores it when eventful: `routing_decisions`, shown by `GET /api/v1/me/usage/{id}/routing`).
 */
import type { Dependencies } from '../dependencies';
import type { GatewayError } from '../errors/gateway-error';
import { refusalWithoutCandidates } from '../routing/explain-refusal';
import { recordRoutingDecision } from '../routing/routing-decisions';
import { RoutingTrace } from '../routing/routing-trace';
import { createSessionAffinity } from '../routing/session-affinity';
import { sessionIdentity } from '../routing/session-identity';
import { CODECS } from './codec-registry';
import type { UpstreamAccount } from '../upstream/upstream-account';
import type { RelayPlan, RoutingLookup } from './relay-plan';
import type { RelayServices } from './relay-services';

export interface AccountRoute {
  /** Failover order: try the first, fail over to the next. */
  ordered: UpstreamAccount[];
  failed(account: UpstreamAccount, error: GatewayError): void;
  served(account: UpstreamAccount): void;
  /** The error for a request no account served (each failure explained). */
  refusal(lastError: GatewayError | undefined): GatewayError | undefined;
  /** Logs the decision chain: at info when anything was skipped or failed, else at debug. */
  report(): void;
}

/** What routing reads about the request; known before admission (except for chained Responses calls). */
export type RoutingInput = Pick<
  RelayPlan,
  'protocol' | 'requestId' | 'key' | 'model' | 'rawBody' | 'request' | 'passThroughAllowed' | 'requestHeaders'
>;

/**
 * Starts routing's lookups. The inference pipeline runs this beside admission, so the session's
 * Redis read shares admission's turn (and round trip) instead of following it.
 */
export async function lookUpRouting(input: RoutingInput, deps: Dependencies, services: RelayServices): Promise<RoutingLookup> {
  const { groupId } = input.key;
  const candidates = await services.upstreams.candidates(groupId, input.model.id, input.model.nativeProtocols);
  // The session matters only when there is a choice of account (affinity) or a translated target
  // may carry it as its cache routing key (Responses, Chat): a one-account pass-through group pays
  // neither the prefix hash nor the Redis round trip of affinity.
  const choice = candidates.accounts.length + candidates.skipped.length > 1;
  const translates = !input.passThroughAllowed || candidates.accounts.some((a) => a.protocol !== input.protocol);
  const session =
    choice || translates
      ? sessionIdentity(CODECS[input.protocol].inbound.sessionSources, input.rawBody, input.request, input.key.keyId, input.requestHeaders)
      : undefined;
  if (session && translates) input.request.cacheKey = session.id;
  const affinity = createSessionAffinity({
    redis: deps.redis,
    redisKeys: deps.redisKeys,
    ttlMs: choice ? deps.config.sessionAffinityTtlMs : 0,
  });
  const boundId =
    session === undefined
      ? Promise.resolve(undefined)
      : affinity.boundAccount(groupId, session.id).catch((error: unknown) => {
          deps.logger.warn({ err: error, requestId: input.requestId }, 'session affinity lookup failed; routing without it');
          return undefined;
        });
  return { candidates, session, affinity, boundId };
}

export async function chooseAccounts(plan: RelayPlan, lookup: RoutingLookup, deps: Dependencies): Promise<AccountRoute> {
  const { groupId } = plan.key;
  const { candidates, session, affinity } = lookup;
  const boundId = await lookup.boundId;
  const scope = { groupName: plan.key.groupName, model: plan.model.id };
  const byProtocol = [
    ...candidates.accounts.filter((a) => a.protocol === plan.protocol),
    ...candidates.accounts.filter((a) => a.protocol !== plan.protocol),
  ];
  // A bound account cooling down or gone is not among the candidates: the session moves on. One of
  // a worse priority than the best candidate is a backup the session failed over to: once the
  // primary is back, priority wins over the cache (an active session would otherwise stay there).
  const bestPriority = Math.min(...byProtocol.map((a) => a.priority));
  const bound = byProtocol.find((a) => a.id === boundId && a.priority <= bestPriority);
  const ordered = bound ? [bound, ...byProtocol.filter((a) => a !== bound)] : byProtocol;
  const trace = new RoutingTrace(scope, ordered, candidates.skipped);
  const report = (message: string) => {
    const steps = trace.steps();
    deps.logger[trace.eventful ? 'info' : 'debug'](
      {
        requestId: plan.requestId,
        group: plan.key.groupName,
        model: plan.model.id,
        session: { source: session?.source ?? 'none', boundAccountId: boundId ?? null },
        routing: steps,
      },
      message,
    );
    if (!trace.eventful) return;
    void recordRoutingDecision(deps.db, {
      requestId: plan.requestId,
      accountId: plan.key.accountId,
      apiKeyId: plan.key.keyId,
      model: plan.model.id,
      outcome: trace.outcome,
      steps,
    }).catch((error: unknown) => deps.logger.warn({ err: error, requestId: plan.requestId }, 'storing a routing decision failed'));
  };
  if (ordered.length === 0) {
    report('routing refused: no account to try');
    throw refusalWithoutCandidates(scope, candidates.skipped, deps.clock.now());
  }
  return {
    ordered,
    failed: (account, error) => trace.failed(account, error),
    served: (account) => {
      trace.served(account, account === bound);
      // The lookup already restarted the TTL of a binding that holds; only a move is written.
      if (session && account.id !== boundId)
        void affinity
          .bind(groupId, session.id, account.id)
          .catch((error: unknown) =>
            deps.logger.warn({ err: error, requestId: plan.requestId }, 'binding a session to its account failed'),
          );
    },
    refusal: (lastError) => trace.refusal(lastError),
    report: () => report('routing decision'),
  };
}
