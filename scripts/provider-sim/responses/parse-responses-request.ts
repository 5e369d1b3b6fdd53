/** Reads a Responses request the way the real API does, with its rules and wording. */
import { arrayField, isRecord, recordField, stringField, type JsonRecord } from '../json';
import type { BoundedMap } from '../bounded-map';
import type { ModelRegistry, SimModel } from '../models';
import { openaiError, openaiInvalid } from '../sim-error';
import { promptSegment } from '../answer/prompt-segment';
import { checkStrictSchema } from '../answer/check-strict-schema';
import { decodeEncryptedReasoning } from '../answer/signatures';
import { guessImageTypeFromUrl } from '../images/guess-image-type-from-url';
import {
  emptyTurn,
  type PromptSegment,
  type SimConversation,
  type SimOutputFormat,
  type SimTool,
  type SimToolChoice,
  type SimTurn,
} from '../answer/conversation';
import type { StoredResponse } from './stored-response';

export interface ParsedResponsesRequest {
  model: SimModel;
  stream: boolean;
  store: boolean;
  /** Previous chain + this request's input: what a follow-up with this response's id continues. */
  inputItems: unknown[];
  includeEncrypted: boolean;
  summary: boolean;
  conversation: SimConversation;
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

export interface ResponsesMemory {
  responses: BoundedMap<string, StoredResponse>;
  /** Ids of the output items of stored responses (reasoning items may be replayed by id alone). */
  itemIds: BoundedMap<string, true>;
}

export function parseResponsesRequest(
  body: unknown,
  models: ModelRegistry,
  modelName: string,
  memory: ResponsesMemory,
): ParsedResponsesRequest {
  if (!isRecord(body)) throw openaiInvalid('Invalid body: expected a JSON object.');
  if (typeof body.model !== 'string') throw openaiInvalid("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  const model = models.find('responses', modelName);
  if (model === undefined)
    throw openaiError(400, `The requested model '${modelName}' does not exist.`, { param: 'model', code: 'model_not_found' });
  if (body.response_format !== undefined) {
    throw openaiInvalid(
      "Unsupported parameter: 'response_format'. In the Responses API, this parameter has moved to 'text.format'. Try again with the new parameter. See the API documentation for more information: https://platform.openai.com/docs/api-reference/responses/create.",
      'response_format',
      'unsupported_parameter',
    );
  }
  const maxOutputTokens = readMaxOutputTokens(body, model);
  readTemperature(body);
  const reasoning = readReasoning(body, model);

  const previousId = body.previous_response_id;
  let history: unknown[] = [];
  if (previousId !== undefined && previousId !== null) {
    const previous = typeof previousId === 'string' ? memory.responses.get(previousId) : undefined;
    if (previous === undefined) {
      throw openaiError(400, `Previous response with id '${String(previousId)}' not found.`, {
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      });
    }
    history = [...previous.inputItems, ...previous.outputItems];
  }
  const ownInput = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (arrayField(body, 'input') ?? []);
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) {
    throw openaiInvalid("Invalid type for 'input': expected one of a string or array of input items.", 'input', 'invalid_type');
  }
  const inputItems = [...history, ...ownInput];

  const segments: PromptSegment[] = [];
  const instructions = stringField(body, 'instructions');
  if (instructions !== undefined && instructions !== '') segments.push(promptSegment(['instructions', instructions], [instructions]));
  const tools = readTools(body.tools, 'tools', segments);
  const outputFormat = readTextFormat(body, inputItems, segments);
  // Codex's code mode sends its tools in `additional_tools` input items: offered like `tools`.
  const turns = readItems(inputItems, segments, memory.itemIds, tools);
  const toolChoice = readToolChoice(body, tools);

  const include = arrayField(body, 'include') ?? [];
  return {
    model,
    stream: body.stream === true,
    store: body.store !== false,
    inputItems,
    includeEncrypted: include.includes('reasoning.encrypted_content'),
    summary: reasoning.summary,
    conversation: {
      turns,
      tools,
      toolChoice,
      parallelToolCalls: body.parallel_tool_calls !== false,
      maxOutputTokens,
      stopSequences: [],
      outputFormat,
      reasoning: reasoning.enabled,
      segments,
    },
  };
}

function readMaxOutputTokens(body: JsonRecord, model: SimModel): number {
  const value = body.max_output_tokens;
  if (value === undefined || value === null) return model.maxOutputTokens;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw openaiInvalid("Invalid type for 'max_output_tokens': expected an integer.", 'max_output_tokens', 'invalid_type');
  if (value < 16) {
    throw openaiInvalid(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${value} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    );
  }
  return Math.min(value, model.maxOutputTokens);
}

function readTemperature(body: JsonRecord): void {
  const value = body.temperature;
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || value > 2 || value < 0) {
    throw openaiInvalid(
      `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${String(value)} instead.`,
      'temperature',
      'decimal_above_max_value',
    );
  }
}

function readReasoning(body: JsonRecord, model: SimModel): { enabled: boolean; summary: boolean } {
  const reasoning = recordField(body, 'reasoning');
  if (reasoning === undefined) return { enabled: false, summary: false };
  const effort = reasoning.effort;
  if (model.rejectsReasoning && effort !== undefined && effort !== null) {
    throw openaiInvalid(
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
      'reasoning.effort',
      'unsupported_parameter',
    );
  }
  const summary = reasoning.summary;
  const wantsSummary = summary === 'auto' || summary === 'concise' || summary === 'detailed';
  const enabled = !model.rejectsReasoning && effort !== 'none' && (typeof effort === 'string' || wantsSummary);
  return { enabled, summary: enabled && wantsSummary };
}

/**
 * Function tools, `custom` (freeform) tools and `namespace` tools grouping them; built-in tools are
 * accepted and never called. `at` is the path of the list (`tools`, `input[3].tools`).
 */
function readTools(raw: unknown, at: string, segments: PromptSegment[], namespace?: string): SimTool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw openaiInvalid(`Invalid type for '${at}': expected an array of objects.`, at, 'invalid_type');
  const tools: SimTool[] = [];
  raw.forEach((tool, index) => {
    const path = `${at}[${index}]`;
    if (!isRecord(tool)) throw openaiInvalid(`Invalid type for '${path}': expected an object.`, path, 'invalid_type');
    if (tool.type === 'namespace' && namespace === undefined) {
      tools.push(...readTools(tool.tools, `${path}.tools`, segments, readToolName(tool, path)));
      return;
    }
    if (tool.type !== 'function' && tool.type !== 'custom') {
      segments.push(promptSegment(tool, [JSON.stringify(tool)]));
      return;
    }
    const name = readToolName(tool, path);
    const origin = namespace === undefined ? {} : { namespace };
    if (tool.type === 'custom') {
      tools.push({ name, schema: null, custom: true, ...origin });
      segments.push(
        promptSegment(tool, [JSON.stringify({ name, description: stringField(tool, 'description') ?? '', format: tool.format ?? null })]),
      );
      return;
    }
    const schema = tool.parameters ?? { type: 'object', properties: {} };
    if (tool.strict === true) {
      const problem = checkStrictSchema(schema);
      if (problem !== null)
        throw openaiInvalid(`Invalid schema for function '${name}': ${problem}`, `${path}.parameters`, 'invalid_function_parameters');
    }
    tools.push({ name, schema, ...origin });
    segments.push(promptSegment(tool, [JSON.stringify({ name, description: stringField(tool, 'description') ?? '', parameters: schema })]));
  });
  return tools;
}

function readToolName(tool: JsonRecord, path: string): string {
  const name = stringField(tool, 'name');
  if (name === undefined) throw openaiInvalid(`Missing required parameter: '${path}.name'.`, `${path}.name`, 'missing_required_parameter');
  if (!NAME_PATTERN.test(name) || name.length > 64) {
    throw openaiInvalid(
      `Invalid '${path}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      `${path}.name`,
      'invalid_value',
    );
  }
  return name;
}

function readToolChoice(body: JsonRecord, tools: SimTool[]): SimToolChoice {
  const raw = body.tool_choice;
  if (raw === undefined || raw === null || raw === 'auto') return { type: 'auto' };
  if (raw === 'none' || raw === 'required') return { type: raw };
  if (isRecord(raw) && raw.type === 'function') {
    const name = stringField(raw, 'name');
    if (name === undefined || !tools.some((tool) => tool.name === name)) {
      throw openaiInvalid("Tool choice 'function' not found in 'tools' parameter.", 'tool_choice');
    }
    return { type: 'named', name };
  }
  if (isRecord(raw)) return { type: 'auto' };
  throw openaiInvalid(
    `Invalid value: '${String(raw)}'. Supported values are: 'none', 'auto', and 'required'.`,
    'tool_choice',
    'invalid_value',
  );
}

function readTextFormat(body: JsonRecord, items: unknown[], segments: PromptSegment[]): SimOutputFormat {
  const text = recordField(body, 'text');
  const format = text === undefined ? undefined : recordField(text, 'format');
  if (format === undefined || format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') {
    const haystack = `${JSON.stringify(items)} ${stringField(body, 'instructions') ?? ''}`.toLowerCase();
    if (!haystack.includes('json')) {
      throw openaiInvalid(
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
        'input',
      );
    }
    return { type: 'json_object' };
  }
  if (format.type !== 'json_schema') {
    throw openaiInvalid(
      `Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      'text.format.type',
      'invalid_value',
    );
  }
  const name = stringField(format, 'name');
  if (name === undefined)
    throw openaiInvalid("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter');
  const schema = format.schema ?? {};
  if (format.strict === true) {
    const problem = checkStrictSchema(schema);
    if (problem !== null)
      throw openaiInvalid(`Invalid schema for response_format '${name}': ${problem}`, 'text.format.schema', 'invalid_json_schema');
  }
  segments.push(promptSegment(['text.format', schema], [JSON.stringify(schema)]));
  return { type: 'json_schema', schema };
}

function readItems(items: unknown[], segments: PromptSegment[], storedItemIds: BoundedMap<string, true>, tools: SimTool[]): SimTurn[] {
  const turns: SimTurn[] = [];
  const callIds = new Set<string>();
  const turnFor = (role: 'user' | 'assistant', forResults = false): SimTurn => {
    const last = turns[turns.length - 1];
    if (last !== undefined && last.role === role && (role === 'assistant' || (forResults && last.toolResults.length > 0))) return last;
    const turn = emptyTurn(role);
    turns.push(turn);
    return turn;
  };
  items.forEach((item, index) => {
    if (!isRecord(item)) throw openaiInvalid(`Invalid type for 'input[${index}]': expected an object.`, `input[${index}]`, 'invalid_type');
    const type = stringField(item, 'type') ?? 'message';
    switch (type) {
      case 'message': {
        const role = stringField(item, 'role');
        if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
          throw openaiInvalid(
            `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
            `input[${index}].role`,
            'invalid_value',
          );
        }
        const turn = role === 'system' || role === 'developer' ? null : turnFor(role);
        const reading = readMessageContent(item.content, index, turn);
        turn?.texts.push(...reading.texts);
        segments.push(promptSegment(item, reading.texts, reading.images));
        return;
      }
      case 'additional_tools':
        tools.push(...readTools(item.tools, `input[${index}].tools`, segments));
        return;
      case 'custom_tool_call':
      case 'function_call': {
        const callId = stringField(item, 'call_id');
        const name = stringField(item, 'name');
        if (callId === undefined || name === undefined) {
          throw openaiInvalid(
            `Missing required parameter: 'input[${index}].${callId === undefined ? 'call_id' : 'name'}'.`,
            `input[${index}]`,
            'missing_required_parameter',
          );
        }
        callIds.add(callId);
        turnFor('assistant').toolCalls.push({ id: callId, name });
        segments.push(promptSegment(item, [stringField(item, type === 'custom_tool_call' ? 'input' : 'arguments') ?? '']));
        return;
      }
      case 'custom_tool_call_output':
      case 'function_call_output': {
        const callId = stringField(item, 'call_id') ?? '';
        if (!callIds.has(callId)) throw openaiInvalid(`No tool call found for function call output with call_id ${callId}.`, 'input');
        const output = item.output;
        const text = typeof output === 'string' ? output : readMessageContent(output, index, null).texts.join('\n');
        turnFor('user', true).toolResults.push({ callId, text });
        segments.push(promptSegment(item, [text]));
        return;
      }
      case 'reasoning': {
        const id = stringField(item, 'id');
        const encrypted = stringField(item, 'encrypted_content');
        let text = '';
        if (encrypted !== undefined) {
          const decoded = decodeEncryptedReasoning(encrypted);
          if (decoded === null)
            throw openaiInvalid(
              `The encrypted content for item ${id ?? `input[${index}]`} could not be verified.`,
              null,
              'invalid_encrypted_content',
            );
          text = decoded;
        } else if (id === undefined || !storedItemIds.has(id)) {
          throw openaiError(
            404,
            `Item with id '${String(id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            { param: 'input' },
          );
        }
        const next = items[index + 1];
        const nextType = isRecord(next) ? (stringField(next, 'type') ?? 'message') : undefined;
        const followed =
          nextType === 'function_call' ||
          nextType === 'custom_tool_call' ||
          (nextType === 'message' && isRecord(next) && next.role === 'assistant');
        if (!followed)
          throw openaiInvalid(
            `Item '${id ?? `input[${index}]`}' of type 'reasoning' was provided without its required following item.`,
            'input',
          );
        turnFor('assistant');
        segments.push(promptSegment(item, [text]));
        return;
      }
      default:
        segments.push(promptSegment(item, [JSON.stringify(item)]));
    }
  });
  return turns;
}

interface ContentReading {
  texts: string[];
  images: number;
}

function readMessageContent(content: unknown, index: number, turn: SimTurn | null): ContentReading {
  const reading: ContentReading = { texts: [], images: 0 };
  if (typeof content === 'string') {
    reading.texts.push(content);
    return reading;
  }
  if (!Array.isArray(content))
    throw openaiInvalid(
      `Invalid type for 'input[${index}].content': expected one of a string or array of input items.`,
      `input[${index}].content`,
      'invalid_type',
    );
  content.forEach((part, partIndex) => {
    const at = `input[${index}].content[${partIndex}]`;
    if (!isRecord(part)) throw openaiInvalid(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        reading.texts.push(stringField(part, 'text') ?? '');
        return;
      case 'refusal':
        reading.texts.push(stringField(part, 'refusal') ?? '');
        return;
      case 'input_image': {
        const url = stringField(part, 'image_url');
        const fileId = stringField(part, 'file_id');
        if (url === undefined && fileId === undefined)
          throw openaiInvalid(`Missing required parameter: '${at}.image_url'.`, `${at}.image_url`, 'missing_required_parameter');
        reading.images++;
        turn?.images.push(
          url === undefined
            ? { mediaType: 'image/*', source: 'file' }
            : { mediaType: guessImageTypeFromUrl(url), source: url.startsWith('data:') ? 'base64' : 'url' },
        );
        return;
      }
      case 'input_file':
        reading.texts.push(JSON.stringify(part));
        return;
      default:
        throw openaiInvalid(
          `Invalid value: '${String(part.type)}'. Supported values are: 'input_text', 'input_image', 'output_text', 'refusal', 'input_file', 'computer_screenshot', and 'summary_text'.`,
          `${at}.type`,
          'invalid_value',
        );
    }
  });
  return reading;
}
