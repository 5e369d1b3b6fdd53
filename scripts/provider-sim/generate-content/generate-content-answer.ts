/** A planned answer written as a GenerateContentResponse, or as its stream (SSE or JSON array). */
import { chunkText } from '../answer/chunk-text';
import { thoughtSignature } from '../answer/signatures';
import type { AnswerPlan } from '../answer/plan-answer';
import { countTextTokens, IMAGE_INPUT_TOKENS } from '../tokens';

/** Tokens Gemini reports for one generated image. */
export const IMAGE_OUTPUT_TOKENS = 1290;

export interface GenerateContentAnswer {
  responseId: string;
  model: string;
  plan: AnswerPlan;
  inputTokens: number;
  cachedTokens: number;
  promptImageCount: number;
  thinking: boolean;
  includeThoughts: boolean;
  candidateCount: number;
  /** Generated image (image models): base64 PNG. */
  imageBase64: string | null;
}

type Part = Record<string, unknown>;

function finishReason(plan: AnswerPlan): string {
  return plan.finish === 'max_tokens' ? 'MAX_TOKENS' : 'STOP';
}

/**
 * The answer's parts in order, one group per streamed chunk. A thinking model signs its first
 * function call; an answer without calls is signed on its text part when whole, and on a final
 * empty text part when streamed, the text chunks before it unsigned (google-text.chunks.txt,
 * google-reasoning*.chunks.txt). Thoughts are never signed.
 */
function answerParts(answer: GenerateContentAnswer, textPieces: string[], streamed: boolean): Part[][] {
  const { plan } = answer;
  const groups: Part[][] = [];
  if (answer.includeThoughts && plan.reasoningText !== null) {
    for (const piece of chunkText(plan.reasoningText, null)) groups.push([{ text: piece, thought: true }]);
  }
  // The same signature whether streamed or not: it signs the answer's text.
  const textSignature = { thoughtSignature: thoughtSignature(plan.text) };
  const signText = answer.thinking && plan.toolCalls.length === 0;
  if (signText && !streamed) groups.push([{ text: textPieces.join(''), ...textSignature }]);
  else for (const piece of textPieces) groups.push([{ text: piece }]);
  plan.toolCalls.forEach((call, index) => {
    const part: Part = { functionCall: { name: call.name, args: call.arguments } };
    groups.push([answer.thinking && index === 0 ? { ...part, thoughtSignature: thoughtSignature(call.name) } : part]);
  });
  if (answer.imageBase64 !== null) groups.push([{ inlineData: { mimeType: 'image/png', data: answer.imageBase64 } }]);
  if (signText && streamed) groups.push([{ text: '', ...textSignature }]);
  return groups;
}

function usageMetadata(answer: GenerateContentAnswer, candidates: number, thoughts: number): Record<string, unknown> {
  const imageTokens = answer.promptImageCount * IMAGE_INPUT_TOKENS;
  const n = answer.candidateCount;
  const usage: Record<string, unknown> = {
    promptTokenCount: answer.inputTokens,
    candidatesTokenCount: candidates * n,
    totalTokenCount: answer.inputTokens + (candidates + thoughts) * n,
  };
  if (answer.cachedTokens > 0) usage.cachedContentTokenCount = answer.cachedTokens;
  const details: Record<string, unknown>[] = [{ modality: 'TEXT', tokenCount: answer.inputTokens - imageTokens }];
  if (imageTokens > 0) details.push({ modality: 'IMAGE', tokenCount: imageTokens });
  usage.promptTokensDetails = details;
  if (answer.imageBase64 !== null) {
    usage.candidatesTokensDetails = [
      { modality: 'TEXT', tokenCount: (candidates - IMAGE_OUTPUT_TOKENS) * n },
      { modality: 'IMAGE', tokenCount: IMAGE_OUTPUT_TOKENS * n },
    ];
  }
  if (thoughts > 0) usage.thoughtsTokenCount = thoughts * n;
  return usage;
}

function candidateTokens(answer: GenerateContentAnswer): number {
  return answer.plan.outputTokens - answer.plan.reasoningTokens + (answer.imageBase64 === null ? 0 : IMAGE_OUTPUT_TOKENS);
}

/** How a candidate ended: its reason, and the message Gemini adds to whole answers with calls. */
interface Finish {
  reason: string;
  message: string | null;
}

function response(
  answer: GenerateContentAnswer,
  parts: Part[],
  finish: Finish | null,
  usage: Record<string, unknown>,
): Record<string, unknown> {
  const candidates = [];
  for (let index = 0; index < answer.candidateCount; index++) {
    const candidate: Record<string, unknown> = { content: { parts, role: 'model' } };
    if (finish !== null) candidate.finishReason = finish.reason;
    candidate.index = index;
    if (finish !== null && finish.message !== null) candidate.finishMessage = finish.message;
    candidates.push(candidate);
  }
  return { candidates, usageMetadata: usage, modelVersion: answer.model, responseId: answer.responseId };
}

export function generateContentBody(answer: GenerateContentAnswer): Record<string, unknown> {
  const text = answer.plan.text;
  const groups = answerParts(answer, text === '' ? [] : [text], false);
  const parts = groups.flat();
  // Thoughts arrive as one part when not streamed.
  const thoughtParts = parts.filter((part) => part.thought === true);
  const merged =
    thoughtParts.length > 0
      ? [{ text: thoughtParts.map((part) => part.text).join(''), thought: true }, ...parts.filter((part) => part.thought !== true)]
      : parts;
  if (merged.length === 0) merged.push({ text: '' });
  // Only the whole answer explains a function-call finish; the stream's last chunk does not
  // (google-tool-call.json against google-tool-call.chunks.txt).
  const finish = {
    reason: finishReason(answer.plan),
    message: answer.plan.toolCalls.length > 0 ? 'Model generated function call(s).' : null,
  };
  return response(answer, merged, finish, usageMetadata(answer, candidateTokens(answer), answer.plan.reasoningTokens));
}

/** One GenerateContentResponse per chunk, usage cumulative, the finish reason on the last one. */
export function generateContentChunks(answer: GenerateContentAnswer): Record<string, unknown>[] {
  const { plan } = answer;
  const groups = answerParts(answer, chunkText(plan.text, plan.chunkSize), true);
  // A function call is followed by an empty text chunk that carries the finish reason; a thinking
  // model's text already ends on one (the signed part).
  if (plan.toolCalls.length > 0 || groups.length === 0) groups.push([{ text: '' }]);
  let candidates = 0;
  let thoughts = 0;
  const chunks: Record<string, unknown>[] = [];
  groups.forEach((parts, index) => {
    for (const part of parts) {
      if (part.thought === true) thoughts += countTextTokens(String(part.text));
      else if (typeof part.text === 'string') candidates += countTextTokens(part.text);
      else if (part.inlineData !== undefined) candidates += IMAGE_OUTPUT_TOKENS;
    }
    const last = index === groups.length - 1;
    if (last) {
      // The totals, exact, whatever the per-chunk rounding gave.
      candidates = candidateTokens(answer);
      thoughts = plan.reasoningTokens;
    } else if (answer.thinking && !answer.includeThoughts) {
      thoughts = plan.reasoningTokens;
    }
    chunks.push(
      response(answer, parts, last ? { reason: finishReason(plan), message: null } : null, usageMetadata(answer, candidates, thoughts)),
    );
  });
  return chunks;
}

export const GENERATE_CONTENT_STREAM_ERROR = {
  error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' },
};
