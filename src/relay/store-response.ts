/** Saves a Responses answer with its whole conversation, so `previous_response_id` chains on any family. */
import type { IrResponse } from '../ir/response';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';

export async function storeResponse(plan: RelayPlan, ir: IrResponse, clientBody: string, services: RelayServices): Promise<void> {
  if (plan.request.store === false) return;
  let response: Record<string, unknown>;
  try {
    response = JSON.parse(clientBody) as Record<string, unknown>;
  } catch {
    return;
  }
  const id = typeof response.id === 'string' ? response.id : plan.streamOptions.responseId;
  if (!id) return;
  await services.responses.save({
    id,
    accountId: plan.key.accountId,
    model: plan.model.id,
    conversation: { system: plan.request.system, turns: [...plan.request.turns, { role: 'assistant', parts: ir.parts }] },
    response,
  });
}
