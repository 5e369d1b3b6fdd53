/** `POST /v1/responses` and `GET /v1/responses/{id}`. */
import { planAnswer } from '../answer/plan-answer';
import { totalInputTokens } from '../answer/conversation';
import { assertFitsContext, exceedsContext, RESPONSES_OVERFLOW_MESSAGE } from '../context-limit';
import { randomId, stableId } from '../ids';
import { isRecord } from '../json';
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';
import { sendStream } from '../http/stream';
import { openaiError } from '../sim-error';
import { parseResponsesRequest } from './parse-responses-request';
import {
  outputItems,
  responsesBody,
  responsesErrorFrames,
  responsesFrames,
  responsesOverflowFrames,
  type ResponsesAnswer,
} from './responses-answer';

export async function handleResponses(context: SimContext, body: unknown, modelName: string): Promise<void> {
  const { state } = context;
  const parsed = parseResponsesRequest(body, state.models, modelName, { responses: state.responses, itemIds: state.responseItemIds });
  const { conversation } = parsed;
  // OpenAI refuses an over-long prompt with a 400, or inside the stream when one was asked for.
  const inputTokens = totalInputTokens(conversation);
  const overflow = parsed.stream && exceedsContext(parsed.model, inputTokens);
  if (!overflow) assertFitsContext('responses', parsed.model, inputTokens);
  const plan = planAnswer(conversation);
  const seed = plan.toolCalls.length > 0 ? JSON.stringify(body) : '';
  const hex = (): string => randomId(50, 'lower36');
  const answer: ResponsesAnswer = {
    id: `resp_${hex()}`,
    createdAt: Math.floor(Date.now() / 1000),
    model: modelName,
    plan,
    inputTokens,
    // A refused prompt is not cached.
    cachedTokens: overflow ? 0 : state.promptCache.automatic(`responses:${modelName}:${context.credential}`, conversation.segments),
    request: isRecord(body) ? body : {},
    includeEncrypted: parsed.includeEncrypted,
    summary: parsed.summary,
    itemIds: { reasoning: `rs_${hex()}`, message: `msg_${hex()}`, calls: plan.toolCalls.map(() => `fc_${hex()}`) },
    callIds: plan.toolCalls.map((_, index) => `call_${stableId(`${seed}#${index}`, 24)}`),
  };
  if (overflow) {
    await sendStream(context, {
      contentType: 'text/event-stream; charset=utf-8',
      frames: responsesOverflowFrames(answer, RESPONSES_OVERFLOW_MESSAGE),
      errorFrames: (emitted) => responsesErrorFrames(answer, emitted),
    });
    return;
  }
  if (parsed.store) {
    const items = outputItems(answer);
    state.responses.set(answer.id, { inputItems: parsed.inputItems, outputItems: items, response: responsesBody(answer) });
    for (const item of items) state.responseItemIds.set(String(item.id), true);
  }
  if (!parsed.stream) {
    sendJson(context, 200, responsesBody(answer));
    return;
  }
  await sendStream(context, {
    contentType: 'text/event-stream; charset=utf-8',
    frames: responsesFrames(answer),
    errorFrames: (emitted) => responsesErrorFrames(answer, emitted),
  });
}

export function handleGetResponse(context: SimContext, id: string): void {
  const stored = context.state.responses.get(id);
  if (stored === undefined) throw openaiError(404, `Response with id '${id}' not found.`, { param: 'response_id' });
  sendJson(context, 200, stored.response);
}
