/** Reads a Chat Completions request the way the real API does, with its rules and wording. */
import { arrayField, isRecord, recordField, stringField, type JsonRecord } from '../json';
import type { ModelRegistry, SimModel } from '../models';
import { openaiError, openaiInvalid } from '../sim-error';
import { promptSegment } from '../answer/prompt-segment';
import { checkStrictSchema } from '../answer/check-strict-schema';
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

export interface ParsedChatRequest {
  model: SimModel;
  stream: boolean;
  includeUsage: boolean;
  includeObfuscation: boolean;
  choices: number;
  /** Whether reasoning text travels in `reasoning_content` (Chat-compatible vendors) or stays hidden (OpenAI). */
  visibleReasoning: boolean;
  conversation: SimConversation;
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;
const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

export function parseChatRequest(body: unknown, models: ModelRegistry, modelName: string): ParsedChatRequest {
  if (!isRecord(body)) throw openaiInvalid('Invalid body: expected a JSON object.');
  if (typeof body.model !== 'string') throw openaiInvalid('you must provide a model parameter');
  const messages = body.messages;
  if (messages === undefined) throw openaiInvalid("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(messages))
    throw openaiInvalid("Invalid type for 'messages': expected an array of objects.", 'messages', 'invalid_type');
  if (messages.length === 0) {
    throw openaiInvalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  const model = models.find('chat', modelName);
  if (model === undefined) {
    throw openaiError(404, `The model \`${modelName}\` does not exist or you do not have access to it.`, { code: 'model_not_found' });
  }

  const stream = body.stream === true;
  if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
    throw openaiInvalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  const streamOptions = recordField(body, 'stream_options') ?? {};
  const maxOutputTokens = readMaxTokens(body, model);
  readTemperature(body, model);
  const reasoning = readReasoning(body, model);
  const stopSequences = readStop(body);
  const choices = readChoiceCount(body);

  const segments: PromptSegment[] = [];
  const tools = readTools(body, segments);
  const toolChoice = readToolChoice(body, tools);
  const outputFormat = readResponseFormat(body, messages, segments);
  const turns = readMessages(messages, segments);

  return {
    model,
    stream,
    includeUsage: streamOptions.include_usage === true,
    includeObfuscation: streamOptions.include_obfuscation !== false,
    choices,
    visibleReasoning: model.vendor !== 'openai',
    conversation: {
      turns,
      tools,
      toolChoice,
      parallelToolCalls: body.parallel_tool_calls !== false,
      maxOutputTokens,
      stopSequences,
      outputFormat,
      reasoning,
      segments,
    },
  };
}

function readMaxTokens(body: JsonRecord, model: SimModel): number {
  if (body.max_tokens !== undefined && body.max_tokens !== null && model.openaiReasoning) {
    throw openaiInvalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  }
  for (const key of ['max_completion_tokens', 'max_tokens']) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw openaiInvalid(`Invalid type for '${key}': expected an integer.`, key, 'invalid_type');
    if (value < 1)
      throw openaiInvalid(
        `Invalid '${key}': integer below minimum value. Expected a value >= 1, but got ${value} instead.`,
        key,
        'integer_below_min_value',
      );
    if (value > model.maxOutputTokens) {
      throw openaiInvalid(
        `${key} is too large: ${value}. This model supports at most ${model.maxOutputTokens} completion tokens, whereas you provided ${value}.`,
        key,
        'invalid_value',
      );
    }
    return value;
  }
  return model.maxOutputTokens;
}

function readTemperature(body: JsonRecord, model: SimModel): void {
  const value = body.temperature;
  if (value === undefined || value === null) return;
  if (typeof value !== 'number') throw openaiInvalid("Invalid type for 'temperature': expected a decimal.", 'temperature', 'invalid_type');
  if (value > 2)
    throw openaiInvalid(
      `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${value} instead.`,
      'temperature',
      'decimal_above_max_value',
    );
  if (value < 0)
    throw openaiInvalid(
      `Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got ${value} instead.`,
      'temperature',
      'decimal_below_min_value',
    );
  if (model.openaiReasoning && value !== 1) {
    throw openaiInvalid(
      `Unsupported value: 'temperature' does not support ${value} with this model. Only the default (1) value is supported.`,
      'temperature',
      'unsupported_value',
    );
  }
}

function readReasoning(body: JsonRecord, model: SimModel): boolean {
  const effort = body.reasoning_effort;
  const thinking = recordField(body, 'thinking');
  if (effort !== undefined && effort !== null) {
    if (model.rejectsReasoning)
      throw openaiInvalid(
        "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        'reasoning_effort',
        'unsupported_parameter',
      );
    if (typeof effort !== 'string' || !EFFORTS.includes(effort)) {
      throw openaiInvalid(
        `Invalid value: '${String(effort)}'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.`,
        'reasoning_effort',
        'invalid_value',
      );
    }
    return effort !== 'none';
  }
  // Chat-compatible vendors (DeepSeek, Moonshot) switch thinking on with `thinking: {type: "enabled"}`.
  return thinking !== undefined && thinking.type === 'enabled' && !model.rejectsReasoning;
}

function readStop(body: JsonRecord): string[] {
  const stop = body.stop;
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return [stop];
  if (!Array.isArray(stop) || stop.some((entry) => typeof entry !== 'string'))
    throw openaiInvalid("Invalid type for 'stop': expected a string or an array of strings.", 'stop', 'invalid_type');
  if (stop.length > 4)
    throw openaiInvalid(
      `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stop.length} instead.`,
      'stop',
      'array_above_max_length',
    );
  return stop as string[];
}

function readChoiceCount(body: JsonRecord): number {
  const n = body.n;
  if (n === undefined || n === null) return 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    throw openaiInvalid(
      `Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${String(n)} instead.`,
      'n',
      'integer_below_min_value',
    );
  if (n > 128)
    throw openaiInvalid(
      `Invalid 'n': integer above maximum value. Expected a value <= 128, but got ${n} instead.`,
      'n',
      'integer_above_max_value',
    );
  return n;
}

function readTools(body: JsonRecord, segments: PromptSegment[]): SimTool[] {
  const raw = body.tools;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw openaiInvalid("Invalid type for 'tools': expected an array of objects.", 'tools', 'invalid_type');
  return raw.map((tool, index) => {
    const fn = isRecord(tool) ? recordField(tool, 'function') : undefined;
    if (!isRecord(tool) || tool.type !== 'function' || fn === undefined) {
      throw openaiInvalid(
        `Missing required parameter: 'tools[${index}].function'.`,
        `tools[${index}].function`,
        'missing_required_parameter',
      );
    }
    const name = stringField(fn, 'name');
    if (name === undefined)
      throw openaiInvalid(
        `Missing required parameter: 'tools[${index}].function.name'.`,
        `tools[${index}].function.name`,
        'missing_required_parameter',
      );
    if (name.length > 64) {
      throw openaiInvalid(
        `Invalid 'tools[${index}].function.name': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`,
        `tools[${index}].function.name`,
        'string_above_max_length',
      );
    }
    if (!NAME_PATTERN.test(name)) {
      throw openaiInvalid(
        `Invalid 'tools[${index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${index}].function.name`,
        'invalid_value',
      );
    }
    const schema = fn.parameters ?? { type: 'object', properties: {} };
    if (fn.strict === true) {
      const problem = checkStrictSchema(schema);
      if (problem !== null)
        throw openaiInvalid(
          `Invalid schema for function '${name}': ${problem}`,
          `tools[${index}].function.parameters`,
          'invalid_function_parameters',
        );
    }
    segments.push(promptSegment(tool, [JSON.stringify({ name, description: stringField(fn, 'description') ?? '', parameters: schema })]));
    return { name, schema };
  });
}

function readToolChoice(body: JsonRecord, tools: SimTool[]): SimToolChoice {
  const raw = body.tool_choice;
  if (raw === undefined || raw === null) return { type: tools.length > 0 ? 'auto' : 'none' };
  if (tools.length === 0 && raw !== 'none') {
    throw openaiInvalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  if (raw === 'auto' || raw === 'none' || raw === 'required') return { type: raw };
  const fn = isRecord(raw) ? recordField(raw, 'function') : undefined;
  const name = fn === undefined ? undefined : stringField(fn, 'name');
  if (!isRecord(raw) || raw.type !== 'function' || name === undefined) {
    throw openaiInvalid(
      "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or a named function.",
      'tool_choice',
      'invalid_value',
    );
  }
  if (!tools.some((tool) => tool.name === name))
    throw openaiInvalid(`Invalid value for 'tool_choice': function '${name}' not found in 'tools'.`, 'tool_choice', 'invalid_value');
  return { type: 'named', name };
}

function readResponseFormat(body: JsonRecord, messages: unknown[], segments: PromptSegment[]): SimOutputFormat {
  const format = body.response_format;
  if (format === undefined || format === null) return { type: 'text' };
  if (!isRecord(format)) throw openaiInvalid("Invalid type for 'response_format': expected an object.", 'response_format', 'invalid_type');
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      if (!JSON.stringify(messages).toLowerCase().includes('json')) {
        throw openaiInvalid(
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
          'messages',
        );
      }
      return { type: 'json_object' };
    case 'json_schema': {
      const spec = recordField(format, 'json_schema');
      if (spec === undefined)
        throw openaiInvalid(
          "Missing required parameter: 'response_format.json_schema'.",
          'response_format.json_schema',
          'missing_required_parameter',
        );
      const name = stringField(spec, 'name');
      if (name === undefined)
        throw openaiInvalid(
          "Missing required parameter: 'response_format.json_schema.name'.",
          'response_format.json_schema.name',
          'missing_required_parameter',
        );
      const schema = spec.schema ?? {};
      if (spec.strict === true) {
        const problem = checkStrictSchema(schema);
        if (problem !== null)
          throw openaiInvalid(`Invalid schema for response_format '${name}': ${problem}`, 'response_format', 'invalid_value');
      }
      segments.push(promptSegment(['response_format', schema], [JSON.stringify(schema)]));
      return { type: 'json_schema', schema };
    }
    default:
      throw openaiInvalid(
        `Invalid value: '${String(format.type)}'. Supported values are: 'json_object', 'json_schema', and 'text'.`,
        'response_format.type',
        'invalid_value',
      );
  }
}

interface ContentReading {
  texts: string[];
  images: number;
}

function readContent(content: unknown, index: number, turn: SimTurn | null): ContentReading {
  const reading: ContentReading = { texts: [], images: 0 };
  if (content === undefined || content === null) return reading;
  if (typeof content === 'string') {
    reading.texts.push(content);
    return reading;
  }
  if (!Array.isArray(content))
    throw openaiInvalid(
      `Invalid type for 'messages[${index}].content': expected one of a string or array of objects.`,
      `messages[${index}].content`,
      'invalid_type',
    );
  content.forEach((part, partIndex) => {
    const at = `messages[${index}].content[${partIndex}]`;
    if (!isRecord(part)) throw openaiInvalid(`Invalid type for '${at}': expected an object.`, at, 'invalid_type');
    if ((part.type === 'text' || part.type === 'refusal') && typeof (part.text ?? part.refusal) === 'string') {
      reading.texts.push(String(part.text ?? part.refusal));
    } else if (part.type === 'image_url') {
      const image = recordField(part, 'image_url');
      const url = image === undefined ? undefined : stringField(image, 'url');
      if (url === undefined)
        throw openaiInvalid(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`, 'missing_required_parameter');
      if (!/^(https?:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i.test(url)) {
        throw openaiInvalid(
          `Invalid '${at}.image_url.url'. Expected a valid URL, but got a value with an invalid format.`,
          `${at}.image_url.url`,
          'invalid_value',
        );
      }
      reading.images++;
      turn?.images.push({ mediaType: guessImageTypeFromUrl(url), source: url.startsWith('data:') ? 'base64' : 'url' });
    } else if (part.type === 'input_audio' || part.type === 'file') {
      reading.texts.push(JSON.stringify(part));
    } else {
      throw openaiInvalid(
        `Invalid value: '${String(part.type)}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', and 'file'.`,
        `${at}.type`,
        'invalid_value',
      );
    }
  });
  return reading;
}

function readMessages(messages: unknown[], segments: PromptSegment[]): SimTurn[] {
  const turns: SimTurn[] = [];
  // Calls of the latest assistant `tool_calls` message still waiting for their `tool` message.
  let pending: { index: number; ids: string[] } | null = null;
  let inToolGroup = false;
  const closeGroup = (): void => {
    if (pending !== null && pending.ids.length > 0) {
      throw openaiInvalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.ids.join(', ')}`,
        `messages.[${pending.index}].role`,
      );
    }
    pending = null;
    inToolGroup = false;
  };
  messages.forEach((message, index) => {
    if (!isRecord(message))
      throw openaiInvalid(`Invalid type for 'messages[${index}]': expected an object.`, `messages[${index}]`, 'invalid_type');
    const role = stringField(message, 'role');
    if (role === undefined)
      throw openaiInvalid(
        `Missing required parameter: 'messages[${index}].role'.`,
        `messages[${index}].role`,
        'missing_required_parameter',
      );
    if (!ROLES.includes(role)) {
      throw openaiInvalid(
        `Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${index}].role`,
        'invalid_value',
      );
    }
    if (role !== 'tool') closeGroup();
    switch (role) {
      case 'system':
      case 'developer': {
        const reading = readContent(message.content, index, null);
        segments.push(promptSegment(message, reading.texts));
        return;
      }
      case 'user':
      case 'function': {
        const turn = emptyTurn('user');
        const reading = readContent(message.content, index, turn);
        turn.texts.push(...reading.texts);
        turns.push(turn);
        segments.push(promptSegment(message, reading.texts, reading.images));
        return;
      }
      case 'assistant': {
        const turn = emptyTurn('assistant');
        const reading = readContent(message.content, index, null);
        turn.texts.push(...reading.texts);
        const texts = [...reading.texts];
        if (typeof message.reasoning_content === 'string') texts.push(message.reasoning_content);
        const calls = arrayField(message, 'tool_calls') ?? [];
        calls.forEach((call, callIndex) => {
          const fn = isRecord(call) ? recordField(call, 'function') : undefined;
          const id = isRecord(call) ? stringField(call, 'id') : undefined;
          const name = fn === undefined ? undefined : stringField(fn, 'name');
          if (id === undefined || name === undefined) {
            throw openaiInvalid(
              `Missing required parameter: 'messages[${index}].tool_calls[${callIndex}].${id === undefined ? 'id' : 'function.name'}'.`,
              `messages[${index}].tool_calls[${callIndex}]`,
              'missing_required_parameter',
            );
          }
          turn.toolCalls.push({ id, name });
          texts.push(stringField(fn!, 'arguments') ?? '');
        });
        if (reading.texts.length === 0 && calls.length === 0 && message.content === undefined) {
          throw openaiInvalid(`Invalid value for 'messages[${index}].content': expected a string, got null.`, `messages[${index}].content`);
        }
        if (calls.length > 0) {
          pending = { index, ids: turn.toolCalls.map((call) => call.id) };
          inToolGroup = true;
        }
        turns.push(turn);
        segments.push(promptSegment(message, texts));
        return;
      }
      default: {
        const current = pending as { index: number; ids: string[] } | null;
        if (!inToolGroup || current === null) {
          throw openaiInvalid(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            `messages.[${index}].role`,
          );
        }
        const callId = stringField(message, 'tool_call_id');
        if (callId === undefined)
          throw openaiInvalid(
            `Missing required parameter: 'messages[${index}].tool_call_id'.`,
            `messages[${index}].tool_call_id`,
            'missing_required_parameter',
          );
        if (!current.ids.includes(callId)) {
          throw openaiInvalid(
            `Invalid parameter: 'tool_call_id' of '${callId}' not found in 'tool_calls' of previous message.`,
            `messages.[${index}].tool_call_id`,
          );
        }
        current.ids = current.ids.filter((id) => id !== callId);
        const reading = readContent(message.content, index, null);
        let turn = turns[turns.length - 1];
        if (turn === undefined || turn.role !== 'user' || turn.toolResults.length === 0) {
          turn = emptyTurn('user');
          turns.push(turn);
        }
        turn.toolResults.push({ callId, text: reading.texts.join('\n') });
        segments.push(promptSegment(message, reading.texts));
      }
    }
  });
  closeGroup();
  return turns;
}
