import { tokenCallCharge, type CallCharge } from '../billing/charge-call';
import type { Usage } from '../ir/usage';
import type { RelayPlan } from './relay-plan';

/** The charge of a relayed call that an upstream account answered. */
export function relayCharge(plan: RelayPlan, usage: Usage, upstreamAccountId: number, status: 'ok' | 'aborted'): CallCharge {
  return tokenCallCharge({
    requestId: plan.requestId,
    accountId: plan.key.accountId,
    apiKeyId: plan.key.keyId,
    model: plan.model,
    protocol: plan.protocol,
    upstreamAccountId,
    usage,
    stream: plan.stream,
    status,
    startedAt: plan.startedAt,
  });
}
