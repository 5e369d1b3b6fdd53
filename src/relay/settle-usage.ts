/** The end of every billed call: cost from normalized usage, Redis counters settled, usage event queued. */
import { computeTokenCost } from '../billing/compute-cost';
import type { UsageRecorder } from '../billing/usage-event';
import type { Usage } from '../ir/usage';
import { totalInputTokens } from '../ir/usage';
import type { RelayPlan } from './relay-plan';

export async function settleUsage(plan: RelayPlan, usage: Usage, recorder: UsageRecorder, options: {
  upstreamAccountId: number; status: 'ok' | 'aborted';
}): Promise<{ credits: number; headers: Record<string, string> }> {
  const credits = computeTokenCost(usage, plan.model.prices);
  // The usage event goes first: a request that succeeded is billed even if the Redis counters
  // cannot be settled right now (the reconciler repairs them from the ledger). Not awaited by the
  // client's answer; the recorder keeps the event until a worker has written it.
  void recorder.record({
    requestId: plan.requestId,
    accountId: plan.key.accountId,
    apiKeyId: plan.key.keyId,
    model: plan.model.id,
    protocol: plan.protocol,
    upstreamAccountId: options.upstreamAccountId,
    promptTokens: totalInputTokens(usage),
    completionTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    reasoningTokens: usage.reasoningTokens,
    images: 0,
    videoSeconds: 0,
    credits,
    stream: plan.stream,
    status: options.status,
    startedAt: plan.startedAt,
  });
  const headers = await plan.ticket.settle(credits).catch(() => plan.ticket.headers());
  return { credits, headers };
}
