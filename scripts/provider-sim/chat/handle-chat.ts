/** `POST /v1/chat/completions`. */
import { planAnswer } from '../answer/plan-answer';
import { totalInputTokens } from '../answer/conversation';
import { assertFitsContext } from '../context-limit';
import { randomId, stableId } from '../ids';
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';
import { sendStream } from '../http/stream';
import { chatBody, chatErrorFrames, chatFrames, type ChatAnswer } from './chat-answer';
import { parseChatRequest } from './parse-chat-request';

export async function handleChat(context: SimContext, body: unknown, modelName: string): Promise<void> {
  const parsed = parseChatRequest(body, context.state.models, modelName);
  const { conversation } = parsed;
  assertFitsContext('chat', parsed.model, totalInputTokens(conversation));
  const plan = planAnswer(conversation);
  const seed = plan.toolCalls.length > 0 ? JSON.stringify(body) : '';
  const answer: ChatAnswer = {
    id: `chatcmpl-${randomId(29)}`,
    created: Math.floor(Date.now() / 1000),
    model: modelName,
    plan,
    choices: parsed.choices,
    inputTokens: totalInputTokens(conversation),
    cachedTokens: context.state.promptCache.automatic(`chat:${modelName}:${context.credential}`, conversation.segments),
    visibleReasoning: parsed.visibleReasoning,
    toolIds: plan.toolCalls.map((_, index) => `call_${stableId(`${seed}#${index}`, 24)}`),
  };
  if (!parsed.stream) {
    sendJson(context, 200, chatBody(answer));
    return;
  }
  await sendStream(context, {
    contentType: 'text/event-stream; charset=utf-8',
    frames: chatFrames(answer, { includeUsage: parsed.includeUsage, includeObfuscation: parsed.includeObfuscation }),
    errorFrames: chatErrorFrames,
  });
}
