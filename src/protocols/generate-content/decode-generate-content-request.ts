/**
 * A Generate-Content client body → IR. The model and the streaming switch are in the URL
 * (`/v1beta/models/{model}:generateContent` vs `:streamGenerateContent`), which this body-only
 * decoder never sees: `model` is left '' and `stream` false for the relay to fill from the route.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { Turn } from '../../ir/parts';
import type {
  BuiltinTool,
  IrRequest,
  JsonSchema,
  ReasoningConfig,
  ReasoningEffort,
  ResponseFormat,
  Sampling,
  SystemPart,
  ToolChoice,
  ToolDefinition,
} from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, DecodedRequest } from '../codec';
import { decodeGenerateContentParts, type FunctionResponseInput } from './decode-generate-content-parts';
import { generateContentSchemaToJsonSchema } from './generate-content-schema-to-json-schema';
import {
  generateContentRequestSchema,
  type GenerateContentGenerationConfig,
  type GenerateContentRequestBody,
} from './generate-content-request-schema';
import { GENERATE_CONTENT } from './generate-content-thought-signature';
import { formatIssuePath } from './format-issue-path';
import { normalizeGenerateContentKeys } from './normalize-generate-content-keys';

const KNOWN_TOP_LEVEL = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
const KNOWN_GENERATION_CONFIG = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'stopSequences',
  'candidateCount',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);
const EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

export function decodeGenerateContentRequest(body: unknown, context: CodecContext): DecodedRequest {
  const parsed = generateContentRequestSchema.safeParse(normalizeGenerateContentKeys(body));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = formatIssuePath(issue.path);
    throw new GatewayError('invalid_request', `${param === '' ? 'body' : param}: ${issue.message}`, { param: param || undefined });
  }
  const input = parsed.data;
  const warnings: TranslationWarning[] = [];
  const extensionFields: Record<string, unknown> = {};

  const request: IrRequest = {
    model: '', // from the URL: the relay fills it
    system: decodeSystem(input),
    turns: decodeTurns(input, context),
    tools: [],
    builtinTools: [],
    sampling: {},
    stream: false, // from the route (`:streamGenerateContent`): the relay sets it
  };

  decodeTools(input, request.tools, request.builtinTools);
  const toolChoice = decodeToolChoice(input, warnings, extensionFields);
  if (toolChoice) request.toolChoice = toolChoice;

  const config = input.generationConfig;
  if (config) {
    request.sampling = decodeSampling(config);
    const format = decodeResponseFormat(config, warnings, extensionFields);
    if (format) request.responseFormat = format;
    const reasoning = decodeReasoning(config, warnings);
    if (reasoning) request.reasoning = reasoning;
    const extraConfig = pickUnknown(config, KNOWN_GENERATION_CONFIG);
    if (extraConfig) extensionFields.generationConfig = { ...(extensionFields.generationConfig as object | undefined), ...extraConfig };
  }

  // Fields the IR has no place for (safetySettings, cachedContent, newer API fields) are replayed
  // only to a Generate-Content upstream.
  for (const [key, value] of Object.entries(input)) {
    if (!KNOWN_TOP_LEVEL.has(key) && value !== undefined) extensionFields[key] = value;
  }
  if (input.toolConfig) {
    const extraToolConfig = pickUnknown(input.toolConfig, new Set(['functionCallingConfig']));
    if (extraToolConfig) extensionFields.toolConfig = { ...(extensionFields.toolConfig as object | undefined), ...extraToolConfig };
  }
  if (Object.keys(extensionFields).length > 0) request.extensions = { protocol: GENERATE_CONTENT, fields: extensionFields };

  return { request, warnings };
}

function decodeSystem(input: GenerateContentRequestBody): SystemPart[] {
  return (input.systemInstruction?.parts ?? []).map((part) => ({ type: 'text', text: part.text }));
}

interface PendingCall {
  id: string;
  name: string;
  answered: boolean;
}

function decodeTurns(input: GenerateContentRequestBody, context: CodecContext): Turn[] {
  const turns: Turn[] = [];
  // Calls of the latest model turn(s), to pair the next function responses with: by id when the
  // client echoes one, else by name in order (pitfall 6).
  let pending: PendingCall[] = [];
  let previousRole: 'user' | 'model' | undefined;

  input.contents.forEach((content, contentIndex) => {
    const role = content.role ?? 'user';
    content.parts.forEach((part, partIndex) => {
      // `{}` or `{thought: true}` carries nothing; unknown kinds (executableCode, …) are kept as native parts.
      if (!Object.entries(part).some(([key, value]) => key !== 'thought' && value !== undefined)) {
        const param = `contents[${contentIndex}].parts[${partIndex}]`;
        throw new GatewayError(
          'invalid_request',
          `${param}: a part needs one of text, inlineData, fileData, functionCall, functionResponse`,
          { param },
        );
      }
    });
    if (role === 'model' && previousRole !== 'model') pending = [];
    previousRole = role;

    const parts = decodeGenerateContentParts(content.parts, {
      signatures: 'client',
      toolName: (name) => name,
      callId: (call) => {
        const id = call.id ?? context.newId('call_');
        if (role === 'model') pending.push({ id, name: call.name, answered: false });
        return id;
      },
      responseCallId: (response: FunctionResponseInput) => pairResponse(response, pending, context),
    });
    if (parts.length === 0) return;
    turns.push({ role: role === 'model' ? 'assistant' : 'user', parts });
  });
  return turns;
}

function pairResponse(response: FunctionResponseInput, pending: PendingCall[], context: CodecContext): string {
  if (response.id) {
    const byId = pending.find((call) => call.id === response.id);
    if (byId) byId.answered = true;
    return response.id;
  }
  const byName = pending.find((call) => !call.answered && call.name === response.name);
  if (byName) {
    byName.answered = true;
    return byName.id;
  }
  return context.newId('call_');
}

function decodeTools(input: GenerateContentRequestBody, tools: ToolDefinition[], builtinTools: BuiltinTool[]): void {
  for (const tool of input.tools ?? []) {
    for (const [key, value] of Object.entries(tool)) {
      if (value === undefined) continue;
      if (key !== 'functionDeclarations') {
        // googleSearch, codeExecution, urlContext, …: meaningful only to a Generate-Content upstream.
        builtinTools.push({ protocol: GENERATE_CONTENT, value: { [key]: value } });
        continue;
      }
      for (const declaration of tool.functionDeclarations ?? []) {
        const parameters: JsonSchema =
          declaration.parametersJsonSchema ??
          (declaration.parameters ? generateContentSchemaToJsonSchema(declaration.parameters) : { type: 'object', properties: {} });
        tools.push({
          name: declaration.name,
          ...(declaration.description !== undefined ? { description: declaration.description } : {}),
          parameters,
        });
      }
    }
  }
}

function decodeToolChoice(
  input: GenerateContentRequestBody,
  warnings: TranslationWarning[],
  extensionFields: Record<string, unknown>,
): ToolChoice | undefined {
  const config = input.toolConfig?.functionCallingConfig;
  if (!config?.mode) return undefined;
  switch (config.mode) {
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'VALIDATED':
      warnings.push({ field: 'toolConfig.functionCallingConfig.mode', message: 'VALIDATED is sent as auto to other protocols' });
      extensionFields.toolConfig = { functionCallingConfig: config };
      return { type: 'auto' };
    case 'ANY': {
      const names = config.allowedFunctionNames ?? [];
      if (names.length === 1) return { type: 'tool', name: names[0] };
      if (names.length > 1) {
        warnings.push({
          field: 'toolConfig.functionCallingConfig.allowedFunctionNames',
          message: 'a choice among several functions is sent as "required" to other protocols',
        });
        extensionFields.toolConfig = { functionCallingConfig: config };
      }
      return { type: 'required' };
    }
  }
}

function decodeSampling(config: GenerateContentGenerationConfig): Sampling {
  const sampling: Sampling = {};
  if (config.maxOutputTokens !== undefined) sampling.maxOutputTokens = config.maxOutputTokens;
  if (config.temperature !== undefined) sampling.temperature = config.temperature;
  if (config.topP !== undefined) sampling.topP = config.topP;
  if (config.topK !== undefined) sampling.topK = config.topK;
  if (config.stopSequences !== undefined) sampling.stop = config.stopSequences;
  if (config.seed !== undefined) sampling.seed = config.seed;
  if (config.presencePenalty !== undefined) sampling.presencePenalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) sampling.frequencyPenalty = config.frequencyPenalty;
  if (config.candidateCount !== undefined) sampling.n = config.candidateCount;
  if (config.responseLogprobs !== undefined) sampling.logprobs = config.responseLogprobs;
  if (config.logprobs !== undefined) sampling.topLogprobs = config.logprobs;
  return sampling;
}

function decodeResponseFormat(
  config: GenerateContentGenerationConfig,
  warnings: TranslationWarning[],
  extensionFields: Record<string, unknown>,
): ResponseFormat | undefined {
  const mime = config.responseMimeType;
  const schema =
    config.responseJsonSchema ?? (config.responseSchema ? generateContentSchemaToJsonSchema(config.responseSchema) : undefined);
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined)
      warnings.push({
        field: 'generationConfig.responseSchema',
        message: 'a schema without responseMimeType "application/json" is ignored',
      });
    return mime === undefined ? undefined : { type: 'text' };
  }
  if (mime === 'application/json') {
    return schema === undefined ? { type: 'json_object' } : { type: 'json_schema', name: 'response', schema };
  }
  warnings.push({ field: 'generationConfig.responseMimeType', message: `"${mime}" has no equivalent in other protocols` });
  extensionFields.generationConfig = {
    ...(extensionFields.generationConfig as object | undefined),
    responseMimeType: mime,
    ...(config.responseSchema ? { responseSchema: config.responseSchema } : {}),
  };
  return undefined;
}

function decodeReasoning(config: GenerateContentGenerationConfig, warnings: TranslationWarning[]): ReasoningConfig | undefined {
  const thinking = config.thinkingConfig;
  if (!thinking) return undefined;
  const reasoning: ReasoningConfig = {};
  if (thinking.includeThoughts !== undefined) reasoning.includeThoughts = thinking.includeThoughts;
  const budget = thinking.thinkingBudget;
  if (budget === 0) {
    reasoning.disabled = true;
    reasoning.budgetTokens = 0;
  } else if (budget !== undefined && budget > 0) {
    reasoning.budgetTokens = budget;
  } // -1 is "dynamic": the provider decides, which is what no budget means in the IR
  if (thinking.thinkingLevel !== undefined) {
    const level = thinking.thinkingLevel.toLowerCase();
    const effort = EFFORTS.find((candidate) => candidate === level);
    if (effort) reasoning.effort = effort;
    else if (level !== 'thinking_level_unspecified') {
      warnings.push({
        field: 'generationConfig.thinkingConfig.thinkingLevel',
        message: `unknown thinking level "${thinking.thinkingLevel}" ignored`,
      });
    }
  }
  return reasoning;
}

function pickUnknown(object: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (!known.has(key) && value !== undefined) out[key] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}
