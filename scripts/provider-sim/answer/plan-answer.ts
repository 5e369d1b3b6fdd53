/**
 * Decides the answer to a conversation, deterministically, the same way for every protocol:
 * - a forced tool choice, or a tool named in the last user text (the user's own: what clients inject,
 *   such as `<system-reminder>` blocks, never counts; a text saying "do not call any tools" names
 *   none), gives tool calls whose arguments
 *   are a minimal valid instance of the tool's schema (several named → parallel calls);
 * - tool results in the last user turn give a text quoting each result verbatim;
 * - a JSON output format gives a minimal instance of the schema;
 * - otherwise `Echo: <last user text>`, plus ` [N image(s): <media types>]` when images came;
 *   `repeat:<N>:<text>` answers `<text>` N times, streamed one repetition per chunk.
 * The text is cut before a stop sequence and truncated to the max output tokens.
 */
import { countTextTokens } from '../tokens';
import type { SimConversation, SimTool, SimTurn } from './conversation';
import { schemaInstance } from './schema-instance';
import { userOwnText } from './user-own-text';

export type SimFinish = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

export interface PlannedToolCall {
  name: string;
  arguments: unknown;
  /** JSON arguments; for a custom tool, its string input as is. */
  argumentsJson: string;
  namespace?: string;
  custom?: boolean;
}

/** The input a custom (freeform) tool is called with. */
const CUSTOM_TOOL_INPUT = 'example';

export interface AnswerPlan {
  reasoningText: string | null;
  reasoningTokens: number;
  text: string;
  textTokens: number;
  /** Stream the text in slices of this many characters (repeat mode); null: a few words per chunk. */
  chunkSize: number | null;
  toolCalls: PlannedToolCall[];
  toolCallTokens: number;
  finish: SimFinish;
  stopSequence: string | null;
  /** Text + tool-call arguments + reasoning. */
  outputTokens: number;
}

const REPEAT = /^repeat:(\d+):([\s\S]+)$/;
const FORBIDS_TOOLS = /\bdo not (?:call|use) (?:any )?tools?\b/i;
const MAX_REPEAT = 100_000;

export function planAnswer(conversation: SimConversation): AnswerPlan {
  const lastUser = findLastUserTurn(conversation.turns);
  const userText = userOwnText(lastUser);
  const toolCalls = chooseToolCalls(conversation, lastUser, userText);

  let reasoningText = conversation.reasoning ? reasoningFor(userText, lastUser) : null;
  let reasoningTokens = reasoningText === null ? 0 : countTextTokens(reasoningText);
  if (reasoningText !== null && reasoningTokens > conversation.maxOutputTokens) {
    reasoningText = truncateToTokens(reasoningText, conversation.maxOutputTokens);
    reasoningTokens = countTextTokens(reasoningText);
  }

  if (toolCalls.length > 0) {
    const toolCallTokens = toolCalls.reduce((sum, call) => sum + countTextTokens(call.argumentsJson), 0);
    return {
      reasoningText,
      reasoningTokens,
      text: '',
      textTokens: 0,
      chunkSize: null,
      toolCalls,
      toolCallTokens,
      finish: 'tool_use',
      stopSequence: null,
      outputTokens: reasoningTokens + toolCallTokens,
    };
  }

  const draft = draftText(conversation, lastUser, userText);
  let text = draft.text;
  let finish: SimFinish = 'end_turn';
  let stopSequence: string | null = null;
  const stop = findStopSequence(text, conversation.stopSequences);
  if (stop !== null) {
    text = text.slice(0, stop.index);
    finish = 'stop_sequence';
    stopSequence = stop.sequence;
  }
  const budget = Math.max(0, conversation.maxOutputTokens - reasoningTokens);
  if (countTextTokens(text) > budget) {
    text = truncateToTokens(text, budget);
    finish = 'max_tokens';
    stopSequence = null;
  }
  const textTokens = countTextTokens(text);
  return {
    reasoningText,
    reasoningTokens,
    text,
    textTokens,
    chunkSize: draft.chunkSize,
    toolCalls: [],
    toolCallTokens: 0,
    finish,
    stopSequence,
    outputTokens: reasoningTokens + textTokens,
  };
}

export function findLastUserTurn(turns: readonly SimTurn[]): SimTurn | undefined {
  for (let index = turns.length - 1; index >= 0; index--) if (turns[index]!.role === 'user') return turns[index];
  return undefined;
}

function chooseToolCalls(conversation: SimConversation, lastUser: SimTurn | undefined, userText: string): PlannedToolCall[] {
  const { tools, toolChoice } = conversation;
  if (tools.length === 0 || toolChoice.type === 'none') return [];
  let chosen: SimTool[];
  if (toolChoice.type === 'named') {
    chosen = tools.filter((tool) => tool.name === toolChoice.name).slice(0, 1);
  } else {
    // A user text that forbids tools (Claude Code's compaction prompt names every tool it forbids) names none.
    chosen = FORBIDS_TOOLS.test(userText) ? [] : toolsNamedIn(userText, tools);
    if (chosen.length === 0 && toolChoice.type === 'required') chosen = [tools[0]!];
  }
  // A turn carrying tool results is answered in text, unless a tool is forced.
  if (toolChoice.type === 'auto' && lastUser !== undefined && lastUser.toolResults.length > 0) return [];
  if (!conversation.parallelToolCalls) chosen = chosen.slice(0, 1);
  return chosen.map((tool) => {
    const origin = { ...(tool.namespace !== undefined ? { namespace: tool.namespace } : {}), ...(tool.custom ? { custom: true } : {}) };
    if (tool.custom) return { name: tool.name, arguments: CUSTOM_TOOL_INPUT, argumentsJson: CUSTOM_TOOL_INPUT, ...origin };
    const args = schemaInstance(tool.schema ?? { type: 'object' });
    return { name: tool.name, arguments: args, argumentsJson: JSON.stringify(args), ...origin };
  });
}

/** The tools whose exact name appears as a whole word in the text, in order of appearance. */
function toolsNamedIn(text: string, tools: readonly SimTool[]): SimTool[] {
  const found: { tool: SimTool; index: number }[] = [];
  for (const tool of tools) {
    const index = wordIndex(text, tool.name);
    if (index >= 0) found.push({ tool, index });
  }
  return found.sort((a, b) => a.index - b.index).map((entry) => entry.tool);
}

function wordIndex(text: string, word: string): number {
  if (word === '') return -1;
  let from = 0;
  for (;;) {
    const index = text.indexOf(word, from);
    if (index < 0) return -1;
    const before = index === 0 ? '' : text[index - 1]!;
    const after = text[index + word.length] ?? '';
    if (!/[A-Za-z0-9_]/.test(before) && !/[A-Za-z0-9_]/.test(after)) return index;
    from = index + 1;
  }
}

function draftText(
  conversation: SimConversation,
  lastUser: SimTurn | undefined,
  userText: string,
): { text: string; chunkSize: number | null } {
  const format = conversation.outputFormat;
  if (format.type === 'json_schema') return { text: JSON.stringify(schemaInstance(format.schema)), chunkSize: null };
  if (format.type === 'json_object') return { text: JSON.stringify({ echo: userText }), chunkSize: null };
  const repeat = REPEAT.exec(userText);
  if (repeat !== null) {
    const unit = repeat[2]!;
    const times = Math.min(Number(repeat[1]), MAX_REPEAT);
    return { text: unit.repeat(times), chunkSize: unit.length };
  }
  const lines: string[] = [];
  for (const result of lastUser?.toolResults ?? []) lines.push(`Tool result: ${result.text}`);
  if (lines.length === 0 || userText !== '') lines.push(`Echo: ${userText}${imageNote(lastUser)}`);
  return { text: lines.join('\n'), chunkSize: null };
}

function imageNote(turn: SimTurn | undefined): string {
  const images = turn?.images ?? [];
  if (images.length === 0) return '';
  const noun = images.length === 1 ? 'image' : 'images';
  return ` [${images.length} ${noun}: ${images.map((image) => image.mediaType).join(', ')}]`;
}

function reasoningFor(userText: string, lastUser: SimTurn | undefined): string {
  if (lastUser !== undefined && lastUser.toolResults.length > 0 && userText === '') {
    return `The tools returned ${lastUser.toolResults.length} result(s). I will quote them.`;
  }
  const snippet = userText.length > 80 ? `${userText.slice(0, 80)}…` : userText;
  return `The user wrote: "${snippet}". I will answer with an echo.`;
}

function findStopSequence(text: string, sequences: readonly string[]): { index: number; sequence: string } | null {
  let best: { index: number; sequence: string } | null = null;
  for (const sequence of sequences) {
    if (sequence === '') continue;
    const index = text.indexOf(sequence);
    if (index >= 0 && (best === null || index < best.index)) best = { index, sequence };
  }
  return best;
}

/** The longest prefix of `text` that fits in `tokens` tokens, cut on a character boundary. */
export function truncateToTokens(text: string, tokens: number): string {
  const maxBytes = tokens * 4;
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += character.length;
  }
  return text.slice(0, end);
}
