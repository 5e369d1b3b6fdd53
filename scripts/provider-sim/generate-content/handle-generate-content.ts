/** `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (`?alt=sse` or a JSON array). */
import { planAnswer, findLastUserTurn } from '../answer/plan-answer';
import { totalInputTokens } from '../answer/conversation';
import { assertFitsContext } from '../context-limit';
import { randomId } from '../ids';
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';
import { sendStream, sseFrame } from '../http/stream';
import { sleep } from '../http/sleep';
import { colourOf } from '../images/png';
import {
  GENERATE_CONTENT_STREAM_ERROR,
  generateContentBody,
  generateContentChunks,
  type GenerateContentAnswer,
} from './generate-content-answer';
import { parseGenerateContentRequest } from './parse-generate-content-request';

/** Pixel sizes Gemini image models produce for each aspect ratio. */
const IMAGE_SIZES: Record<string, [number, number]> = {
  '1:1': [1024, 1024],
  '2:3': [832, 1248],
  '3:2': [1248, 832],
  '3:4': [864, 1184],
  '4:3': [1184, 864],
  '4:5': [896, 1152],
  '5:4': [1152, 896],
  '9:16': [768, 1344],
  '16:9': [1344, 768],
  '21:9': [1536, 672],
};

export async function handleGenerateContent(context: SimContext, body: unknown, modelName: string, stream: boolean): Promise<void> {
  const { state } = context;
  const parsed = parseGenerateContentRequest(body, state.models, modelName, stream ? 'streamGenerateContent' : 'generateContent');
  const { conversation } = parsed;
  assertFitsContext('generate-content', parsed.model, totalInputTokens(conversation));
  const plan = planAnswer(conversation);
  let imageBase64: string | null = null;
  if (parsed.image !== null) {
    if (!(await sleep(state.options.imageMs, state.closing))) return;
    const [width, height] = IMAGE_SIZES[parsed.image.aspectRatio] ?? [1024, 1024];
    const prompt = findLastUserTurn(conversation.turns)?.texts.join('\n') ?? '';
    imageBase64 = state.pngs.get(width, height, colourOf(prompt)).toString('base64');
  }
  const answer: GenerateContentAnswer = {
    responseId: randomId(23),
    model: modelName,
    plan,
    inputTokens: totalInputTokens(conversation),
    cachedTokens: state.promptCache.automatic(`generate-content:${modelName}:${context.credential}`, conversation.segments),
    promptImageCount: parsed.promptImageCount,
    thinking: parsed.thinking,
    includeThoughts: parsed.includeThoughts,
    candidateCount: parsed.candidateCount,
    imageBase64,
  };
  if (!stream) {
    sendJson(context, 200, generateContentBody(answer));
    return;
  }
  const chunks = generateContentChunks(answer);
  if (context.query.get('alt') === 'sse') {
    await sendStream(context, {
      contentType: 'text/event-stream',
      frames: chunks.map((chunk) => sseFrame(chunk)),
      errorFrames: () => [sseFrame(GENERATE_CONTENT_STREAM_ERROR)],
    });
    return;
  }
  // Without alt=sse the stream is one JSON array, written element by element.
  const frames = chunks.map((chunk, index) => `${index === 0 ? '[' : ',\r\n'}${JSON.stringify(chunk)}`);
  frames.push(']');
  await sendStream(context, {
    contentType: 'application/json; charset=UTF-8',
    frames,
    errorFrames: (emitted) => [`${emitted === 0 ? '[' : ',\r\n'}${JSON.stringify(GENERATE_CONTENT_STREAM_ERROR)}]`],
  });
}
