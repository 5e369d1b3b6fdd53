/**
 * The entry point of charging a call (docs/billing.md walks the rest of the flow): the usage event
 * goes to the recorder, and the admission's reservation is replaced by the actual cost on every
 * Redis counter. Called only by `runPaidCall`, the one owner of an admission ticket.
 */
import type { AdmissionTicket, SettlementRider } from '../limits/admission';
import type { CatalogModel } from '../catalog/model';
import type { Usage } from '../ir/usage';
import { totalInputTokens } from '../ir/usage';
import { computeTokenCost } from './compute-cost';
import type { UsageEvent, UsageRecorder } from './usage-event';

/** What a finished call owes: the credits, and the usage event that records them (none for a task hold). */
export interface CallCharge {
  credits: number;
  usage?: UsageEvent;
}

/** The charge of a token call: its usage priced at the model's prices, with the event that records it. */
export function tokenCallCharge(input: {
  requestId: string;
  accountId: number;
  apiKeyId: number;
  model: CatalogModel;
  protocol: string;
  upstreamAccountId: number;
  usage: Usage;
  stream: boolean;
  status: 'ok' | 'aborted';
  startedAt: number;
}): CallCharge {
  const { usage } = input;
  const credits = computeTokenCost(usage, input.model.prices);
  return {
    credits,
    usage: {
      requestId: input.requestId,
      accountId: input.accountId,
      apiKeyId: input.apiKeyId,
      model: input.model.id,
      protocol: input.protocol,
      upstreamAccountId: input.upstreamAccountId,
      promptTokens: totalInputTokens(usage),
      completionTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      reasoningTokens: usage.reasoningTokens,
      images: 0,
      videoSeconds: 0,
      credits,
      stream: input.stream,
      status: input.status,
      startedAt: input.startedAt,
    },
  };
}

type TokenCounts = 'promptTokens' | 'completionTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens';

/** The usage event of a media call (images now, an image or video task when it succeeds): no tokens, never a stream, always whole. */
export function mediaUsageEvent(input: Omit<UsageEvent, TokenCounts | 'stream' | 'status'>): UsageEvent {
  return {
    ...input,
    promptTokens: 0,
    completionTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    stream: false,
    status: 'ok',
  };
}

/**
 * Charges the call; returns the accounting headers after the charge (as of admission when Redis
 * cannot say). A `rider` (the request log's record of a whole answer) goes in the same script call.
 */
export async function chargeCall(
  ticket: AdmissionTicket,
  recorder: UsageRecorder,
  charge: CallCharge,
  rider?: SettlementRider,
): Promise<Record<string, string>> {
  if (!charge.usage) {
    return ticket.settle(charge.credits, undefined, rider).catch(() => {
      rider?.notAppended();
      return ticket.headers();
    });
  }
  // One round trip: the settlement script appends the usage event with the counters. The recorder
  // keeps the event until a worker has written it, and appends it itself if the script did not run,
  // so a call that succeeded is billed even when the counters cannot be settled right now (the
  // reconciler repairs them from the ledger).
  const held = recorder.hold?.(charge.usage);
  if (!held) void recorder.record(charge.usage);
  try {
    return await ticket.settle(charge.credits, held, rider);
  } catch {
    held?.notAppended();
    rider?.notAppended();
    return ticket.headers();
  }
}
