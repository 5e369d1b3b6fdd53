/**
 * Reads a Messages request the way the real API does: every rule of the interface notes
 * (PROTOCOLS.md sections 2 and 6) that the API enforces is enforced here, with its wording.
 */
import { arrayField, isRecord, numberField, recordField, stringField, type JsonRecord } from '../json';
import type { ModelRegistry, SimModel } from '../models';
import { anthropicError, anthropicInvalid } from '../sim-error';
import { isValidThinkingSignature } from '../answer/signatures';
import { promptSegment } from '../answer/prompt-segment';
import {
  emptyTurn,
  type PromptSegment,
  type SimConversation,
  type SimOutputFormat,
  type SimTool,
  type SimToolChoice,
  type SimTurn,
} from '../answer/conversation';
import { checkMessagesImage } from './check-messages-image';

export interface ParsedMessagesRequest {
  model: SimModel;
  stream: boolean;
  conversation: SimConversation;
}

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_CACHE_BREAKPOINTS = 4;
const THINKING_DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

export function parseMessagesRequest(body: unknown, models: ModelRegistry, modelName: string): ParsedMessagesRequest {
  if (!isRecord(body)) throw anthropicInvalid('Request body must be a JSON object');
  if (typeof body.model !== 'string') throw anthropicInvalid('model: Field required');
  if (body.max_tokens === undefined) throw anthropicInvalid('max_tokens: Field required');
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens)) throw anthropicInvalid('max_tokens: Input should be a valid integer');
  if (maxTokens < 1) throw anthropicInvalid('max_tokens: Input should be greater than or equal to 1');
  const messages = arrayField(body, 'messages');
  if (messages === undefined) throw anthropicInvalid('messages: Field required');

  const model = models.find('messages', modelName);
  if (model === undefined) throw anthropicError(404, 'not_found_error', `model: ${modelName}`);
  if (maxTokens > model.maxOutputTokens) {
    throw anthropicInvalid(
      `max_tokens: ${maxTokens} > ${model.maxOutputTokens}, which is the maximum allowed number of output tokens for ${modelName}`,
    );
  }

  const temperature = body.temperature;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) {
    throw anthropicInvalid(
      typeof temperature === 'number' && temperature < 0
        ? 'temperature: Input should be greater than or equal to 0'
        : 'temperature: Input should be less than or equal to 1',
    );
  }
  const stopSequences = readStopSequences(body);
  const segments: PromptSegment[] = [];
  const tools = readTools(body, segments);
  const toolChoice = readToolChoice(body, tools);
  const thinking = readThinking(body, maxTokens, toolChoice.choice);
  readSystem(body, segments);
  const outputFormat = readOutputFormat(body);

  const turns = readMessages(messages, segments, thinking);
  if (outputFormat.type === 'json_schema')
    segments.push(promptSegment(['output_schema', outputFormat.schema], [JSON.stringify(outputFormat.schema)]));
  const breakpoints = segments.filter((segment) => segment.cacheBreakpoint !== null).length;
  if (breakpoints > MAX_CACHE_BREAKPOINTS) {
    throw anthropicInvalid(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  }

  return {
    model,
    stream: body.stream === true,
    conversation: {
      turns,
      tools,
      toolChoice: toolChoice.choice,
      parallelToolCalls: toolChoice.parallel,
      maxOutputTokens: maxTokens,
      stopSequences,
      outputFormat,
      reasoning: thinking,
      segments,
    },
  };
}

function readStopSequences(body: JsonRecord): string[] {
  const value = body.stop_sequences;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw anthropicInvalid('stop_sequences: Input should be a valid list');
  return value.map((entry, index) => {
    if (typeof entry !== 'string') throw anthropicInvalid(`stop_sequences.${index}: Input should be a valid string`);
    return entry;
  });
}

function cacheTtl(block: JsonRecord): '5m' | '1h' | null {
  const control = recordField(block, 'cache_control');
  if (control === undefined) return null;
  return stringField(control, 'ttl') === '1h' ? '1h' : '5m';
}

function withoutCacheControl(block: JsonRecord): JsonRecord {
  if (block.cache_control === undefined) return block;
  const copy = { ...block };
  delete copy.cache_control;
  return copy;
}

function readTools(body: JsonRecord, segments: PromptSegment[]): SimTool[] {
  const raw = body.tools;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw anthropicInvalid('tools: Input should be a valid list');
  const tools: SimTool[] = [];
  const names = new Set<string>();
  raw.forEach((tool, index) => {
    if (!isRecord(tool)) throw anthropicInvalid(`tools.${index}: Input should be a valid dictionary`);
    const type = stringField(tool, 'type');
    const name = stringField(tool, 'name') ?? '';
    if (type !== undefined && type !== 'custom') {
      // A server tool (web search, code execution…): accepted, never called by the simulator.
      segments.push(promptSegment(withoutCacheControl(tool), [JSON.stringify(withoutCacheControl(tool))], 0, cacheTtl(tool)));
      names.add(name);
      return;
    }
    if (!TOOL_NAME_PATTERN.test(name))
      throw anthropicInvalid(`tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    const schema = tool.input_schema;
    if (!isRecord(schema)) throw anthropicInvalid(`tools.${index}.custom.input_schema: Field required`);
    if (schema.type !== 'object') throw anthropicInvalid(`tools.${index}.custom.input_schema.type: Input should be 'object'`);
    if (names.has(name)) throw anthropicInvalid('tools: Tool names must be unique.');
    names.add(name);
    tools.push({ name, schema });
    const description = stringField(tool, 'description') ?? '';
    segments.push(promptSegment(withoutCacheControl(tool), [JSON.stringify({ name, description, parameters: schema })], 0, cacheTtl(tool)));
  });
  return tools;
}

function readToolChoice(body: JsonRecord, tools: SimTool[]): { choice: SimToolChoice; parallel: boolean } {
  const raw = body.tool_choice;
  if (raw === undefined || raw === null) return { choice: { type: 'auto' }, parallel: true };
  if (!isRecord(raw)) throw anthropicInvalid('tool_choice: Input should be a valid dictionary');
  const parallel = raw.disable_parallel_tool_use !== true;
  switch (raw.type) {
    case 'auto':
      return { choice: { type: 'auto' }, parallel };
    case 'none':
      return { choice: { type: 'none' }, parallel };
    case 'any':
      return { choice: { type: 'required' }, parallel };
    case 'tool': {
      const name = stringField(raw, 'name');
      if (name === undefined) throw anthropicInvalid('tool_choice.tool.name: Field required');
      if (!tools.some((tool) => tool.name === name)) throw anthropicInvalid(`Tool '${name}' not found in provided tools`);
      return { choice: { type: 'named', name }, parallel };
    }
    default:
      throw anthropicInvalid(
        "tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
      );
  }
}

function readThinking(body: JsonRecord, maxTokens: number, toolChoice: SimToolChoice): boolean {
  const thinking = body.thinking;
  if (thinking === undefined || thinking === null) return false;
  if (!isRecord(thinking)) throw anthropicInvalid('thinking: Input should be a valid dictionary');
  if (thinking.type === 'disabled') return false;
  if (thinking.type === 'enabled') {
    const budget = numberField(thinking, 'budget_tokens');
    if (budget === undefined) throw anthropicInvalid('thinking.enabled.budget_tokens: Field required');
    if (budget < 1024) throw anthropicInvalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (maxTokens <= budget)
      throw anthropicInvalid(
        `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${THINKING_DOCS}#max-tokens-and-context-window-size`,
      );
  } else if (thinking.type !== 'adaptive') {
    throw anthropicInvalid(
      "thinking: Input tag found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'",
    );
  }
  if (toolChoice.type === 'required' || toolChoice.type === 'named')
    throw anthropicInvalid('Thinking may not be enabled when tool_choice forces tool use.');
  if (body.temperature !== undefined && body.temperature !== 1) {
    throw anthropicInvalid(
      `\`temperature\` may only be set to 1 when thinking is enabled or in adaptive mode. ${THINKING_DOCS}#feature-compatibility`,
    );
  }
  return true;
}

function readSystem(body: JsonRecord, segments: PromptSegment[]): void {
  const system = body.system;
  if (system === undefined || system === null) return;
  if (typeof system === 'string') {
    if (system !== '') segments.push(promptSegment(['system', system], [system]));
    return;
  }
  if (!Array.isArray(system)) throw anthropicInvalid('system: Input should be a valid string or list');
  system.forEach((block, index) => {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') {
      throw anthropicInvalid(`system.${index}: Input should be a valid text block`);
    }
    if (block.text.trim() === '') throw anthropicInvalid('system: text content blocks must contain non-whitespace text');
    segments.push(promptSegment(['system', withoutCacheControl(block)], [block.text], 0, cacheTtl(block)));
  });
}

function readOutputFormat(body: JsonRecord): SimOutputFormat {
  const config = recordField(body, 'output_config');
  const format = (config === undefined ? undefined : recordField(config, 'format')) ?? recordField(body, 'output_format');
  if (format === undefined) return { type: 'text' };
  if (format.type !== 'json_schema') throw anthropicInvalid("output_config.format.type: Input should be 'json_schema'");
  if (!isRecord(format.schema)) throw anthropicInvalid('output_config.format.json_schema.schema: Field required');
  return { type: 'json_schema', schema: format.schema };
}

const USER_BLOCKS = new Set(['text', 'image', 'document', 'tool_result', 'search_result', 'container_upload']);
const ASSISTANT_BLOCKS = new Set([
  'text',
  'tool_use',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
]);

function readMessages(messages: unknown[], segments: PromptSegment[], thinking: boolean): SimTurn[] {
  if (messages.length === 0) throw anthropicInvalid('messages: at least one message is required');
  const turns: SimTurn[] = [];
  let previousToolUseIds: string[] = [];
  messages.forEach((message, index) => {
    if (!isRecord(message)) throw anthropicInvalid(`messages.${index}: Input should be a valid dictionary`);
    const role = message.role;
    if (role !== 'user' && role !== 'assistant') throw anthropicInvalid(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    if (index === 0 && role !== 'user') throw anthropicInvalid('messages: first message must use the "user" role');
    const previous = turns[turns.length - 1];
    if (previous !== undefined && previous.role === role) {
      throw anthropicInvalid(`messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`);
    }
    const isFinalAssistant = role === 'assistant' && index === messages.length - 1;
    const blocks = normalizeContent(message.content, index, isFinalAssistant);
    const turn = emptyTurn(role);
    const resultIds: string[] = [];
    let sawOtherBlock = false;
    blocks.forEach((block, blockIndex) => {
      const at = `messages.${index}.content.${blockIndex}`;
      const type = stringField(block, 'type') ?? '';
      const allowed = role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS;
      if (!allowed.has(type)) {
        throw anthropicInvalid(
          USER_BLOCKS.has(type) || ASSISTANT_BLOCKS.has(type)
            ? `${at}.type: \`${type}\` blocks are not allowed in \`${role}\` messages`
            : `${at}: Input tag '${type}' found using 'type' does not match any of the expected tags`,
        );
      }
      if (type === 'tool_result') {
        if (sawOtherBlock)
          throw anthropicInvalid(
            `messages.${index}: \`tool_result\` blocks must come first in the \`content\` of a \`user\` message, before any other content`,
          );
        resultIds.push(readToolResult(block, at, turn, segments));
        return;
      }
      sawOtherBlock = true;
      readBlock(block, type, at, turn, segments, isFinalAssistant && blockIndex === blocks.length - 1);
    });

    if (role === 'user') {
      for (const id of resultIds) {
        if (!previousToolUseIds.includes(id)) {
          throw anthropicInvalid(
            `messages.${index}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
      }
      const missing = previousToolUseIds.filter((id) => !resultIds.includes(id));
      if (missing.length > 0) {
        throw anthropicInvalid(
          `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
      previousToolUseIds = [];
    } else {
      previousToolUseIds = turn.toolCalls.map((call) => call.id);
    }
    turns.push(turn);
  });
  if (thinking) checkThinkingReplay(messages, turns);
  return turns;
}

function normalizeContent(content: unknown, index: number, isFinalAssistant: boolean): JsonRecord[] {
  const emptyMessage = `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
  if (typeof content === 'string') {
    if (content === '' && !isFinalAssistant) throw anthropicInvalid(emptyMessage);
    if (content === '') return [];
    return [{ type: 'text', text: content }];
  }
  if (!Array.isArray(content)) throw anthropicInvalid(`messages.${index}.content: Input should be a valid string or list`);
  if (content.length === 0 && !isFinalAssistant) throw anthropicInvalid(emptyMessage);
  return content.map((block, blockIndex) => {
    if (!isRecord(block)) throw anthropicInvalid(`messages.${index}.content.${blockIndex}: Input should be a valid dictionary`);
    return block;
  });
}

function readBlock(block: JsonRecord, type: string, at: string, turn: SimTurn, segments: PromptSegment[], isFinalBlock: boolean): void {
  const key = withoutCacheControl(block);
  const ttl = cacheTtl(block);
  switch (type) {
    case 'text': {
      const text = stringField(block, 'text');
      if (text === undefined) throw anthropicInvalid(`${at}.text: Field required`);
      if (text === '') throw anthropicInvalid('messages: text content blocks must be non-empty');
      if (text.trim() === '') throw anthropicInvalid('messages: text content blocks must contain non-whitespace text');
      if (isFinalBlock && turn.role === 'assistant' && /\s$/.test(text))
        throw anthropicInvalid('messages: final assistant content cannot end with trailing whitespace');
      turn.texts.push(text);
      segments.push(promptSegment(key, [text], 0, ttl));
      return;
    }
    case 'image':
      turn.images.push(checkMessagesImage(block, at));
      segments.push(promptSegment(key, [], 1, ttl));
      return;
    case 'document':
      segments.push(promptSegment(key, documentTexts(block), 0, ttl));
      return;
    case 'tool_use': {
      const id = stringField(block, 'id') ?? '';
      if (!ID_PATTERN.test(id)) throw anthropicInvalid(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      const name = stringField(block, 'name');
      if (name === undefined || name === '') throw anthropicInvalid(`${at}.tool_use.name: Field required`);
      if (!isRecord(block.input)) throw anthropicInvalid(`${at}.tool_use.input: Input should be a valid dictionary`);
      turn.toolCalls.push({ id, name });
      segments.push(promptSegment(key, [JSON.stringify(block.input)], 0, ttl));
      return;
    }
    case 'thinking': {
      const text = stringField(block, 'thinking');
      const signature = stringField(block, 'signature');
      if (text === undefined || signature === undefined || !isValidThinkingSignature(text, signature)) {
        throw anthropicInvalid(`${at}: Invalid \`signature\` in \`thinking\` block`);
      }
      segments.push(promptSegment(key, [text], 0, ttl));
      return;
    }
    case 'redacted_thinking':
      // The simulator never redacts, so no redacted block can be one of its own.
      throw anthropicInvalid(`${at}: Invalid \`data\` in \`redacted_thinking\` block`);
    default:
      segments.push(promptSegment(key, [JSON.stringify(key)], 0, ttl));
  }
}

function documentTexts(block: JsonRecord): string[] {
  const source = recordField(block, 'source');
  if (source === undefined) return [];
  const data = stringField(source, 'data');
  if (source.type === 'text' && data !== undefined) return [data];
  if (data !== undefined) return [data];
  return [];
}

function readToolResult(block: JsonRecord, at: string, turn: SimTurn, segments: PromptSegment[]): string {
  const id = stringField(block, 'tool_use_id') ?? '';
  if (!ID_PATTERN.test(id)) throw anthropicInvalid(`${at}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
  const texts: string[] = [];
  let images = 0;
  const content = block.content;
  if (typeof content === 'string') {
    texts.push(content);
  } else if (Array.isArray(content)) {
    content.forEach((part, partIndex) => {
      if (!isRecord(part)) throw anthropicInvalid(`${at}.tool_result.content.${partIndex}: Input should be a valid dictionary`);
      if (part.type === 'text' && typeof part.text === 'string') {
        if (part.text.trim() === '') throw anthropicInvalid('messages: text content blocks must contain non-whitespace text');
        texts.push(part.text);
      } else if (part.type === 'image') {
        turn.images.push(checkMessagesImage(part, `${at}.tool_result.content.${partIndex}`));
        images++;
      } else if (part.type === 'tool_reference') {
        // The tool search tool's answer: it loads a deferred tool; its name is the only text.
        const name = stringField(part, 'tool_name');
        if (name === undefined) throw anthropicInvalid(`${at}.tool_result.content.${partIndex}.tool_name: Field required`);
        texts.push(name);
      } else if (part.type !== 'document' && part.type !== 'search_result') {
        throw anthropicInvalid(
          `${at}.tool_result.content.${partIndex}: Input tag '${String(part.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document', 'tool_reference'`,
        );
      }
    });
  } else if (content !== undefined && content !== null) {
    throw anthropicInvalid(`${at}.tool_result.content: Input should be a valid string or list`);
  }
  turn.toolResults.push({ callId: id, text: texts.join('\n') });
  segments.push(promptSegment(withoutCacheControl(block), texts, images, cacheTtl(block)));
  return id;
}

/**
 * With thinking on, a conversation that ends in tool results must replay the assistant turn that
 * called the tools starting with its (signed) thinking block.
 */
function checkThinkingReplay(messages: unknown[], turns: SimTurn[]): void {
  const last = turns[turns.length - 1];
  if (last === undefined || last.role !== 'user' || last.toolResults.length === 0 || turns.length < 2) return;
  const assistantIndex = turns.length - 2;
  const assistant = messages[assistantIndex];
  const content = isRecord(assistant) ? assistant.content : undefined;
  const first = Array.isArray(content) ? content[0] : undefined;
  const firstType = isRecord(first) ? first.type : typeof content === 'string' ? 'text' : undefined;
  if (firstType === 'thinking' || firstType === 'redacted_thinking') return;
  throw anthropicInvalid(
    `messages.${assistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(firstType)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${THINKING_DOCS}`,
  );
}
