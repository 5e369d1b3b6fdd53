/** Reads a Generate-Content request the way the real API does, with its rules and wording. */
import { isRecord, stringField, type JsonRecord } from '../json';
import type { ModelRegistry, SimModel } from '../models';
import { googleError, googleInvalid } from '../sim-error';
import { promptSegment } from '../answer/prompt-segment';
import { isWellFormedThoughtSignature } from '../answer/signatures';
import {
  emptyTurn,
  type PromptSegment,
  type SimConversation,
  type SimOutputFormat,
  type SimTool,
  type SimToolChoice,
  type SimTurn,
} from '../answer/conversation';
import { checkGeminiSchema } from './check-gemini-schema';
import { field } from './field';

export interface ParsedGenerateContentRequest {
  model: SimModel;
  conversation: SimConversation;
  /** Thinking happens (thought tokens, signatures). */
  thinking: boolean;
  /** Thought parts are returned (`includeThoughts`). */
  includeThoughts: boolean;
  /** Answer with a generated image (image model asked for IMAGE output); its aspect ratio. */
  image: { aspectRatio: string } | null;
  candidateCount: number;
  promptImageCount: number;
}

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const PART_FIELDS = new Set([
  ...DATA_FIELDS,
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
  'inline_data',
  'file_data',
  'function_call',
  'function_response',
  'executable_code',
  'code_execution_result',
  'thought_signature',
  'video_metadata',
  'part_metadata',
  'media_resolution',
]);
export const ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];

export function parseGenerateContentRequest(
  body: unknown,
  models: ModelRegistry,
  modelName: string,
  method: string,
): ParsedGenerateContentRequest {
  const model = models.find('generate-content', modelName);
  if (model === undefined) {
    throw googleError(
      404,
      `models/${modelName} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
      'NOT_FOUND',
    );
  }
  if (!isRecord(body)) throw googleInvalid('Invalid JSON payload received. Expected an object.');
  const contents = field(body, 'contents');
  if (!Array.isArray(contents) || contents.length === 0)
    throw googleInvalid('* GenerateContentRequest.contents: contents is not specified\n');

  const config = field(body, 'generationConfig');
  const generation: JsonRecord = isRecord(config) ? config : {};
  const segments: PromptSegment[] = [];
  readSystemInstruction(body, segments);
  const tools = readTools(body, segments);
  const toolChoice = readToolConfig(body, tools);
  const outputFormat = readOutputFormat(generation, segments);
  const turns = readContents(contents, segments, model);

  const maxOutputTokens = readMaxOutputTokens(generation, model);
  const stopSequences = readStopSequences(generation);
  const thinkingConfig = field(generation, 'thinkingConfig');
  const thinking = readThinking(isRecord(thinkingConfig) ? thinkingConfig : undefined, model);
  const image = readImageOutput(generation, model);
  const candidateCount = readCandidateCount(generation);
  return {
    model,
    thinking: thinking.enabled,
    includeThoughts: thinking.includeThoughts,
    image,
    candidateCount,
    promptImageCount: turns.reduce((sum, turn) => sum + turn.images.length, 0),
    conversation: {
      turns,
      tools,
      toolChoice,
      parallelToolCalls: true,
      maxOutputTokens,
      stopSequences,
      outputFormat,
      reasoning: thinking.enabled,
      segments,
    },
  };
}

function readSystemInstruction(body: JsonRecord, segments: PromptSegment[]): void {
  const system = field(body, 'systemInstruction');
  if (system === undefined || system === null) return;
  const parts = isRecord(system) ? system.parts : undefined;
  if (!Array.isArray(parts)) throw googleInvalid("Invalid JSON payload received. Invalid value at 'system_instruction'.");
  for (const part of parts) {
    const text = isRecord(part) ? stringField(part, 'text') : undefined;
    if (text !== undefined) segments.push(promptSegment(['system', text], [text]));
  }
}

function readTools(body: JsonRecord, segments: PromptSegment[]): SimTool[] {
  const raw = field(body, 'tools');
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw googleInvalid("Invalid JSON payload received. Invalid value at 'tools'.");
  const tools: SimTool[] = [];
  raw.forEach((tool, toolIndex) => {
    if (!isRecord(tool)) throw googleInvalid(`Invalid JSON payload received. Invalid value at 'tools[${toolIndex}]'.`);
    const declarations = field(tool, 'functionDeclarations');
    if (declarations === undefined) {
      // Built-in tools (googleSearch, codeExecution, urlContext…) are accepted and never called.
      segments.push(promptSegment(tool, [JSON.stringify(tool)]));
      return;
    }
    if (!Array.isArray(declarations))
      throw googleInvalid(`Invalid JSON payload received. Invalid value at 'tools[${toolIndex}].function_declarations'.`);
    declarations.forEach((declaration, index) => {
      const at = `tools[${toolIndex}].function_declarations[${index}]`;
      if (!isRecord(declaration)) throw googleInvalid(`Invalid JSON payload received. Invalid value at '${at}'.`);
      const name = stringField(declaration, 'name') ?? '';
      if (!FUNCTION_NAME.test(name)) {
        throw googleInvalid(
          `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
        );
      }
      const parameters = declaration.parameters;
      const jsonSchema = field(declaration, 'parametersJsonSchema');
      if (parameters !== undefined && parameters !== null) checkGeminiSchema(parameters, `${at}.parameters`);
      const schema = parameters ?? jsonSchema ?? { type: 'object' };
      tools.push({ name, schema });
      segments.push(
        promptSegment(declaration, [
          JSON.stringify({ name, description: stringField(declaration, 'description') ?? '', parameters: schema }),
        ]),
      );
    });
  });
  return tools;
}

function readToolConfig(body: JsonRecord, tools: SimTool[]): SimToolChoice {
  const config = field(body, 'toolConfig');
  const calling = isRecord(config) ? field(config, 'functionCallingConfig') : undefined;
  if (!isRecord(calling)) return { type: 'auto' };
  const mode = calling.mode ?? 'AUTO';
  const allowed = field(calling, 'allowedFunctionNames');
  switch (mode) {
    case 'AUTO':
    case 'MODE_UNSPECIFIED':
    case 'VALIDATED':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY': {
      if (!Array.isArray(allowed) || allowed.length === 0) return { type: 'required' };
      const names = allowed.filter((name): name is string => typeof name === 'string');
      const unknown = names.find((name) => !tools.some((tool) => tool.name === name));
      if (unknown !== undefined)
        throw googleInvalid(
          `* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: Function name "${unknown}" is not declared in tools.\n`,
        );
      if (names.length === 1) return { type: 'named', name: names[0]! };
      // Several allowed names: keep only those tools callable.
      tools.splice(0, tools.length, ...tools.filter((tool) => names.includes(tool.name)));
      return { type: 'required' };
    }
    default:
      throw googleInvalid(
        `Invalid JSON payload received. Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${String(mode)}"`,
      );
  }
}

function readOutputFormat(generation: JsonRecord, segments: PromptSegment[]): SimOutputFormat {
  const mimeType = field(generation, 'responseMimeType');
  const schema = field(generation, 'responseSchema');
  const jsonSchema = field(generation, 'responseJsonSchema');
  if (schema !== undefined && schema !== null) {
    checkGeminiSchema(schema, 'generation_config.response_schema');
    if (mimeType !== 'application/json' && mimeType !== 'text/x.enum') {
      throw googleInvalid(
        '* GenerateContentRequest.generation_config.response_mime_type: response_mime_type must be set to application/json or text/x.enum when response_schema is set.\n',
      );
    }
  }
  if (jsonSchema !== undefined && jsonSchema !== null && mimeType !== 'application/json') {
    throw googleInvalid(
      '* GenerateContentRequest.generation_config.response_mime_type: response_mime_type must be set to application/json when response_json_schema is set.\n',
    );
  }
  if (mimeType !== 'application/json') return { type: 'text' };
  const chosen = schema ?? jsonSchema;
  if (chosen === undefined || chosen === null) return { type: 'json_object' };
  segments.push(promptSegment(['response_schema', chosen], [JSON.stringify(chosen)]));
  return { type: 'json_schema', schema: chosen };
}

function readMaxOutputTokens(generation: JsonRecord, model: SimModel): number {
  const value = field(generation, 'maxOutputTokens');
  if (value === undefined || value === null) return model.maxOutputTokens;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > model.maxOutputTokens) {
    throw googleInvalid(
      `Unable to submit request because it has a maxOutputTokens value of ${String(value)} but the supported range is from 1 (inclusive) to ${model.maxOutputTokens + 1} (exclusive). Update the value and try again.`,
    );
  }
  return value;
}

function readStopSequences(generation: JsonRecord): string[] {
  const value = field(generation, 'stopSequences');
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string'))
    throw googleInvalid("Invalid JSON payload received. Invalid value at 'generation_config.stop_sequences'.");
  if (value.length > 5)
    throw googleInvalid('* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences are allowed\n');
  return value as string[];
}

function readThinking(config: JsonRecord | undefined, model: SimModel): { enabled: boolean; includeThoughts: boolean } {
  const budget = config === undefined ? undefined : field(config, 'thinkingBudget');
  const level = config === undefined ? undefined : field(config, 'thinkingLevel');
  const includeThoughts = config !== undefined && field(config, 'includeThoughts') === true;
  if (budget === 0 && model.thinkingOnly) throw googleInvalid('Budget 0 is invalid. This model only works in thinking mode.');
  // gemini-3 style models always think; others when asked to (a non-zero budget, a level, or thoughts).
  const asked = (typeof budget === 'number' && budget !== 0) || typeof level === 'string' || includeThoughts;
  const enabled = model.requiresThoughtSignatures || asked;
  return { enabled, includeThoughts: enabled && includeThoughts };
}

function readImageOutput(generation: JsonRecord, model: SimModel): { aspectRatio: string } | null {
  const modalities = field(generation, 'responseModalities');
  const wantsImage = Array.isArray(modalities) && modalities.some((entry) => typeof entry === 'string' && entry.toUpperCase() === 'IMAGE');
  if (!wantsImage) return null;
  if (!model.imageOutput) throw googleInvalid('Model does not support the requested response modalities: image');
  const imageConfig = field(generation, 'imageConfig');
  const aspectRatio = isRecord(imageConfig) ? (field(imageConfig, 'aspectRatio') ?? '1:1') : '1:1';
  if (typeof aspectRatio !== 'string' || !ASPECT_RATIOS.includes(aspectRatio)) {
    throw googleInvalid(
      `* GenerateContentRequest.generation_config.image_config.aspect_ratio: Unsupported aspect ratio ${String(aspectRatio)}. Supported values are ${ASPECT_RATIOS.join(', ')}.\n`,
    );
  }
  return { aspectRatio };
}

function readCandidateCount(generation: JsonRecord): number {
  const value = field(generation, 'candidateCount');
  if (value === undefined || value === null) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 8) {
    throw googleInvalid('* GenerateContentRequest.generation_config.candidate_count: candidate_count must be between 1 and 8.\n');
  }
  return value;
}

interface ContentSummary {
  role: 'user' | 'model';
  calls: string[];
  responses: string[];
  hasUserData: boolean;
}

function readContents(contents: unknown[], segments: PromptSegment[], model: SimModel): SimTurn[] {
  const turns: SimTurn[] = [];
  const summaries: ContentSummary[] = [];
  contents.forEach((content, index) => {
    const at = `contents[${index}]`;
    if (!isRecord(content)) throw googleInvalid(`Invalid JSON payload received. Invalid value at '${at}'.`);
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model') throw googleInvalid('Please use a valid role: user, model.');
    const parts = content.parts;
    if (!Array.isArray(parts) || parts.length === 0)
      throw googleInvalid(`* GenerateContentRequest.${at}.parts: contents.parts must not be empty.\n`);
    const turn = emptyTurn(role === 'user' ? 'user' : 'assistant');
    const summary: ContentSummary = { role, calls: [], responses: [], hasUserData: false };
    const texts: string[] = [];
    parts.forEach((part, partIndex) => readPart(part, `${at}.parts[${partIndex}]`, turn, summary, texts));
    turns.push(turn);
    summaries.push(summary);
    segments.push(promptSegment(content, texts, turn.images.length));
  });
  checkFunctionTurns(summaries);
  checkThoughtSignatures(contents, summaries, model);
  return turns;
}

function readPart(part: unknown, at: string, turn: SimTurn, summary: ContentSummary, texts: string[]): void {
  if (!isRecord(part)) throw googleInvalid(`Invalid JSON payload received. Invalid value at '${at}'.`);
  for (const key of Object.keys(part)) {
    if (!PART_FIELDS.has(key)) throw googleInvalid(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`);
  }
  const present = DATA_FIELDS.filter((name) => field(part, name) !== undefined);
  if (present.length !== 1) {
    throw googleInvalid(
      present.length === 0
        ? `* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field\n`
        : `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${present[1]}'`,
    );
  }
  const signature = field(part, 'thoughtSignature');
  if (signature !== undefined && (typeof signature !== 'string' || !isWellFormedThoughtSignature(signature))) {
    throw googleInvalid('Corrupted thought signature.');
  }
  switch (present[0]) {
    case 'text': {
      const text = String(part.text);
      texts.push(text);
      if (part.thought !== true) {
        turn.texts.push(text);
        summary.hasUserData = true;
      }
      return;
    }
    case 'inlineData':
    case 'fileData': {
      const data = field(part, present[0]);
      const mimeType = isRecord(data) ? (stringField(data, 'mimeType') ?? stringField(data, 'mime_type')) : undefined;
      if (mimeType === undefined)
        throw googleInvalid(
          `* GenerateContentRequest.${at}.${present[0] === 'inlineData' ? 'inline_data' : 'file_data'}.mime_type: mime_type is required.\n`,
        );
      if (present[0] === 'inlineData' && isRecord(data) && typeof data.data !== 'string')
        throw googleInvalid(`* GenerateContentRequest.${at}.inline_data.data: data is required.\n`);
      if (mimeType.startsWith('image/')) turn.images.push({ mediaType: mimeType, source: present[0] === 'inlineData' ? 'base64' : 'url' });
      summary.hasUserData = true;
      return;
    }
    case 'functionCall': {
      const call = field(part, 'functionCall');
      const name = isRecord(call) ? stringField(call, 'name') : undefined;
      if (name === undefined) throw googleInvalid(`* GenerateContentRequest.${at}.function_call.name: Name is empty.\n`);
      const args = isRecord(call) ? (call.args ?? {}) : {};
      summary.calls.push(name);
      turn.toolCalls.push({ id: (isRecord(call) ? stringField(call, 'id') : undefined) ?? name, name });
      texts.push(JSON.stringify(args));
      return;
    }
    case 'functionResponse': {
      const response = field(part, 'functionResponse');
      const name = isRecord(response) ? stringField(response, 'name') : undefined;
      if (name === undefined) throw googleInvalid(`* GenerateContentRequest.${at}.function_response.name: Name is empty.\n`);
      const payload = isRecord(response) ? response.response : undefined;
      if (payload !== undefined && !isRecord(payload))
        throw googleInvalid(
          `Invalid JSON payload received. Invalid value at '${at}.function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(payload)}`,
        );
      summary.responses.push(name);
      const text = responseText(payload ?? {});
      turn.toolResults.push({ callId: (isRecord(response) ? stringField(response, 'id') : undefined) ?? name, text });
      texts.push(JSON.stringify(payload ?? {}));
      return;
    }
    default:
      texts.push(JSON.stringify(part));
  }
}

/** A response `{content: "…"}` (one string field) is quoted as that string, anything else as JSON. */
function responseText(payload: JsonRecord): string {
  const values = Object.values(payload);
  if (values.length === 1 && typeof values[0] === 'string') return values[0];
  return JSON.stringify(payload);
}

function checkFunctionTurns(summaries: ContentSummary[]): void {
  summaries.forEach((summary, index) => {
    const previous = summaries[index - 1];
    if (summary.role === 'model' && summary.calls.length > 0 && (previous === undefined || previous.role !== 'user')) {
      throw googleInvalid('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    }
    if (summary.responses.length > 0) {
      if (previous === undefined || previous.role !== 'model' || previous.calls.length === 0) {
        throw googleInvalid('Please ensure that function response turn comes immediately after a function call turn.');
      }
    }
    if (previous !== undefined && previous.role === 'model' && previous.calls.length > 0) {
      if (summary.responses.length !== previous.calls.length) {
        throw googleInvalid(
          'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
        );
      }
      const expected = [...previous.calls].sort();
      const given = [...summary.responses].sort();
      if (expected.some((name, position) => name !== given[position])) {
        throw googleInvalid('Please ensure that the function response names match the function call names of the function call turn.');
      }
    }
  });
}

/**
 * gemini-3 rule: in the current turn (since the last user content with text or media), the first
 * function call of each model step must carry the thought signature it was returned with.
 */
function checkThoughtSignatures(contents: unknown[], summaries: ContentSummary[], model: SimModel): void {
  if (!model.requiresThoughtSignatures) return;
  let start = 0;
  summaries.forEach((summary, index) => {
    if (summary.role === 'user' && summary.hasUserData) start = index;
  });
  for (let index = start; index < contents.length; index++) {
    const content = contents[index];
    if (!isRecord(content) || content.role !== 'model' || !Array.isArray(content.parts)) continue;
    const first = content.parts.find((part) => isRecord(part) && field(part, 'functionCall') !== undefined);
    if (!isRecord(first) || field(first, 'thoughtSignature') !== undefined) continue;
    const call = field(first, 'functionCall');
    const name = isRecord(call) ? String(call.name) : '';
    throw googleInvalid(
      `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }
}
