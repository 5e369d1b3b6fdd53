/**
 * The client-facing `response` object (INTERFACE 2.4), used by the complete answer and by every
 * stream event that carries the response. Request fields are echoed as the native API does.
 */
import type { IrRequest, ResponseFormat, ToolChoice } from '../../ir/request';
import { assertNever } from '../../ir/assert-never';

export interface ResponseObjectFields {
  id: string;
  createdAt: number;
  model: string;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  incompleteReason?: string | null;
  error?: { code: string; message: string } | null;
  output: Array<Record<string, unknown>>;
  usage: Record<string, unknown> | null;
  request?: IrRequest;
}

function toolChoiceEcho(choice: ToolChoice | undefined, request: IrRequest): unknown {
  const raw = request.extensions?.protocol === 'responses' ? request.extensions.fields.tool_choice : undefined;
  if (choice === undefined) return raw ?? 'auto';
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return { type: 'function', name: choice.name };
    default:
      return assertNever(choice, 'tool choice');
  }
}

function formatEcho(format: ResponseFormat | undefined): Record<string, unknown> {
  if (format === undefined) return { type: 'text' };
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema':
      return {
        type: 'json_schema',
        name: format.name,
        schema: format.schema,
        strict: format.strict ?? null,
        ...(format.description !== undefined ? { description: format.description } : {}),
      };
    default:
      return assertNever(format, 'response format');
  }
}

function requestEcho(request: IrRequest | undefined): Record<string, unknown> {
  if (request === undefined) {
    return {
      instructions: null,
      max_output_tokens: null,
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: true,
      temperature: 1,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      truncation: 'disabled',
      user: null,
      metadata: {},
    };
  }
  const instructions = request.system.map((part) => part.text).join('\n\n');
  return {
    instructions: instructions === '' ? null : instructions,
    max_output_tokens: request.sampling.maxOutputTokens ?? null,
    parallel_tool_calls: request.parallelToolCalls ?? true,
    previous_response_id: request.previousResponseId ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: request.store ?? true,
    temperature: request.sampling.temperature ?? 1,
    text: { format: formatEcho(request.responseFormat) },
    tool_choice: toolChoiceEcho(request.toolChoice, request),
    tools: [
      ...request.tools.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description ?? null,
        parameters: tool.parameters,
        strict: tool.strict ?? null,
      })),
      ...request.builtinTools.filter((tool) => tool.protocol === 'responses').map((tool) => tool.value),
    ],
    top_p: request.sampling.topP ?? 1,
    truncation: 'disabled',
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

export function buildResponseObject(fields: ResponseObjectFields): Record<string, unknown> {
  return {
    id: fields.id,
    object: 'response',
    created_at: fields.createdAt,
    status: fields.status,
    error: fields.error ?? null,
    incomplete_details: fields.incompleteReason ? { reason: fields.incompleteReason } : null,
    model: fields.model,
    output: fields.output,
    ...requestEcho(fields.request),
    usage: fields.usage,
  };
}
