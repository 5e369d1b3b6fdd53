/** `POST /v1/messages`. */
import { planAnswer } from '../answer/plan-answer';
import { totalInputTokens } from '../answer/conversation';
import { assertFitsContext } from '../context-limit';
import { randomId, stableId } from '../ids';
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';
import { sendStream } from '../http/stream';
import { messagesBody, messagesErrorFrames, messagesFrames, type MessagesAnswer } from './messages-answer';
import { parseMessagesRequest } from './parse-messages-request';

export async function handleMessages(context: SimContext, body: unknown, modelName: string): Promise<void> {
  const parsed = parseMessagesRequest(body, context.state.models, modelName);
  const { conversation } = parsed;
  assertFitsContext('messages', parsed.model, totalInputTokens(conversation));
  const plan = planAnswer(conversation);
  const seed = plan.toolCalls.length > 0 ? JSON.stringify(body) : '';
  const answer: MessagesAnswer = {
    id: `msg_01${randomId(22)}`,
    model: modelName,
    plan,
    inputTokens: totalInputTokens(conversation),
    cache: context.state.promptCache.explicit(`messages:${modelName}:${context.credential}`, conversation.segments),
    toolIds: plan.toolCalls.map((_, index) => `toolu_01${stableId(`${seed}#${index}`, 22)}`),
  };
  if (!parsed.stream) {
    sendJson(context, 200, messagesBody(answer));
    return;
  }
  await sendStream(context, {
    contentType: 'text/event-stream; charset=utf-8',
    frames: messagesFrames(answer),
    errorFrames: messagesErrorFrames,
  });
}
