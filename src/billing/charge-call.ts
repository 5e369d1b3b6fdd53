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

/** What every usage event names: the call, where it went and what it cost. */
type CallFacts = Pick<
  UsageEvent,
  'requestId' | 'accountId' | 'apiKeyId' | 'model' | 'protocol' | 'upstreamAccountId' | 'credits' | 'startedAt'
>;

/** What the call consumed; a count it did not have is 0, and a call is whole and not streamed unless said. */
interface Consumption {
  tokens?: Usage;
  images?: number;
  videoSeconds?: number;
  stream?: boolean;
  status?: UsageEvent['status'];
}

/** The one builder of a usage event, for token and media calls alike. */
function usageEvent(call: CallFacts, consumed: Consumption): UsageEvent {
  const { tokens } = consumed;
  return {
    requestId: call.requestId,
    accountId: call.accountId,
    apiKeyId: call.apiKeyId,
    model: call.model,
    protocol: call.protocol,
    upstreamAccountId: call.upstreamAccountId,
    promptTokens: tokens ? totalInputTokens(tokens) : 0,
    completionTokens: tokens?.outputTokens ?? 0,
    cacheReadTokens: tokens?.cacheReadTokens ?? 0,
    cacheWriteTokens: tokens?.cacheWriteTokens ?? 0,
    reasoningTokens: tokens?.reasoningTokens ?? 0,
    images: consumed.images ?? 0,
    videoSeconds: consumed.videoSeconds ?? 0,
    credits: call.credits,
    stream: consumed.stream ?? false,
    status: consumed.status ?? 'ok',
    startedAt: call.startedAt,
  };
}

/** The charge of a token call: its usage priced at the model's prices, with the event that records it. */
export function tokenCallCharge(
  input: Omit<CallFacts, 'model' | 'credits'> & {
    model: CatalogModel;
    usage: Usage;
    stream: boolean;
    status: UsageEvent['status'];
  },
): CallCharge {
  const { model, usage, stream, status, ...call } = input;
  const credits = computeTokenCost(usage, model.prices);
  return { credits, usage: usageEvent({ ...call, model: model.id, credits }, { tokens: usage, stream, status }) };
}

/** The usage event of a media call (images now, an image or video task when it succeeds): no tokens, never a stream, always whole. */
export function mediaUsageEvent(input: CallFacts & { images: number; videoSeconds: number }): UsageEvent {
  const { images, videoSeconds, ...call } = input;
  return usageEvent(call, { images, videoSeconds });
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
