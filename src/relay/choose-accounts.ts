/**
 * The accounts one inference request may try, in order, and the record of what became of each:
 * the group's candidates (priority, weight, health), same-protocol first so pass-through is tried
 * before translation. With no candidate at all the request is refused here, saying why. The relay
 * reports every attempt back (`failed`, `served`); `refusal` explains a request no account served
 * and `report` logs the whole decision chain for operators.
 */
import type { Dependencies } from '../dependencies';
import type { GatewayError } from '../errors/gateway-error';
import { refusalWithoutCandidates } from '../routing/explain-refusal';
import { RoutingTrace } from '../routing/routing-trace';
import type { UpstreamAccount } from '../upstream/upstream-account';
import type { RelayPlan } from './relay-plan';
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

export async function chooseAccounts(plan: RelayPlan, deps: Dependencies, services: RelayServices): Promise<AccountRoute> {
  const candidates = await services.upstreams.candidates(plan.key.groupId, plan.model.id, plan.model.nativeProtocols);
  const scope = { groupName: plan.key.groupName, model: plan.model.id };
  const ordered = [...candidates.accounts.filter((a) => a.protocol === plan.protocol), ...candidates.accounts.filter((a) => a.protocol !== plan.protocol)];
  const trace = new RoutingTrace(scope, ordered, candidates.skipped);
  const report = (message: string) => {
    const level = trace.eventful ? 'info' : 'debug';
    deps.logger[level]({ requestId: plan.requestId, group: plan.key.groupName, model: plan.model.id, routing: trace.steps() }, message);
  };
  if (ordered.length === 0) {
    report('routing refused: no account to try');
    throw refusalWithoutCandidates(scope, candidates.skipped, deps.clock.now());
  }
  return {
    ordered,
    failed: (account, error) => trace.failed(account, error),
    served: (account) => trace.served(account, false),
    refusal: (lastError) => trace.refusal(lastError),
    report: () => report('routing decision'),
  };
}
