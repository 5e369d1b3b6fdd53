/** IR tool definitions, built-ins and tool choice → Messages `tools` / `tool_choice` (PROTOCOLS.md 2.2). */
import type { IrRequest, JsonSchema, ToolChoice } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { UpstreamTarget } from '../codec';
import { sanitizeToolName } from '../shared/tool-names';

/** A Messages `input_schema` must be an object schema. */
export function objectInputSchema(schema: JsonSchema, path: string, warnings: TranslationWarning[]): JsonSchema {
  if (schema.type === undefined) return { type: 'object', ...schema };
  if (schema.type === 'object') return schema;
  warnings.push({ field: path, message: 'the schema is not an object schema; it was wrapped as the `value` property of one' });
  return { type: 'object', properties: { value: schema }, required: ['value'] };
}

export function encodeMessagesTools(
  request: IrRequest,
  target: UpstreamTarget,
  toolNames: Record<string, string>,
  warnings: TranslationWarning[],
): Array<Record<string, unknown>> {
  const tools: Array<Record<string, unknown>> = request.tools.map((tool, i) => {
    const path = `tools[${i}]`;
    const out: Record<string, unknown> = {
      name: sanitizeToolName(tool.name, toolNames),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      input_schema: objectInputSchema(tool.parameters, `${path}.parameters`, warnings),
    };
    if (tool.strict !== undefined) {
      if (target.nativeJsonSchema) out.strict = tool.strict;
      else if (tool.strict) warnings.push({ field: `${path}.strict`, message: 'strict tool schemas are not supported by this model' });
    }
    if (tool.cacheHint) out.cache_control = { ...tool.cacheHint };
    return out;
  });
  request.builtinTools.forEach((tool, i) => {
    if (tool.protocol === 'messages') tools.push({ ...tool.value, type: String(tool.value.type) });
    else
      warnings.push({
        field: `builtinTools[${i}]`,
        message: `a ${tool.protocol} built-in tool (${String(tool.value.type)}) is not available on this provider`,
      });
  });
  return tools;
}

export function encodeMessagesToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
  toolNames: Record<string, string>,
): Record<string, unknown> | undefined {
  const disableParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallelToolCalls === false ? { type: 'auto', ...disableParallel } : undefined;
  switch (choice.type) {
    case 'auto':
      return { type: 'auto', ...disableParallel };
    case 'none':
      return { type: 'none' };
    case 'required':
      return { type: 'any', ...disableParallel };
    case 'tool':
      return { type: 'tool', name: sanitizeToolName(choice.name, toolNames), ...disableParallel };
  }
}

/** The first of `json`, `json_2`, … that no other tool uses. */
export function uniqueToolName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
