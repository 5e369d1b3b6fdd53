/**
 * Codex's Responses tool shapes that no other protocol has, carried as ordinary function tools and
 * shown to the client in their own shape again:
 * - `namespace` tools (`{type: 'namespace', name, description, tools: [...]}`, called as
 *   `{type: 'function_call', namespace, name}`): each member becomes a tool named
 *   `<namespace>__<member>`;
 * - `custom` (freeform) tools (`{type: 'custom', name, format}`, called as
 *   `{type: 'custom_tool_call', name, input}` with a string input): a function of one string
 *   parameter `input`.
 */
import { z } from 'zod';
import type { ToolDefinition } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import { functionToolSchema } from './request-schema';

const SEPARATOR = '__';

export const namespaceToolSchema = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1),
  description: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string().min(1) })),
});

export function namespacedToolName(namespace: string, member: string): string {
  return `${namespace}${SEPARATOR}${member}`;
}

export const freeformToolSchema = z.looseObject({
  type: z.literal('custom'),
  name: z.string().min(1),
  description: z.string().nullish(),
  format: z.looseObject({ type: z.string() }).nullish(),
});

/** A custom tool as a function taking its raw input as one string. */
export function freeformToolDefinition(tool: z.infer<typeof freeformToolSchema>, namespace?: string): ToolDefinition {
  const syntax = tool.format && typeof tool.format.syntax === 'string' ? ` (${tool.format.syntax} syntax)` : '';
  return {
    name: namespace === undefined ? tool.name : namespacedToolName(namespace, tool.name),
    ...(namespace === undefined ? {} : { namespace: { name: namespace, member: tool.name } }),
    ...(tool.description ? { description: tool.description } : {}),
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: `The tool's raw input${syntax}` } },
      required: ['input'],
      additionalProperties: false,
    },
    freeform: true,
  };
}

/** The raw input of a freeform call: the `input` argument (or the arguments as sent, if not JSON). */
export function freeformInput(argumentsJson: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { input?: unknown }).input === 'string') {
      return (parsed as { input: string }).input;
    }
  } catch {
    // Not JSON: the input as it came.
  }
  return argumentsJson;
}

/** The namespace's function and custom members as flat tools; other members cannot cross and are reported. */
export function flattenNamespaceTool(
  namespace: z.infer<typeof namespaceToolSchema>,
  path: string,
  warnings: TranslationWarning[],
): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  namespace.tools.forEach((raw, index) => {
    const freeform = freeformToolSchema.safeParse(raw);
    if (freeform.success) {
      tools.push(freeformToolDefinition(freeform.data, namespace.name));
      return;
    }
    const member = functionToolSchema.safeParse(raw);
    if (!member.success) {
      warnings.push({
        field: `${path}.tools[${index}]`,
        message: `a ${raw.type} tool inside namespace ${namespace.name} cannot be translated and was dropped`,
      });
      return;
    }
    const tool = member.data;
    tools.push({
      name: namespacedToolName(namespace.name, tool.name),
      namespace: { name: namespace.name, member: tool.name },
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict !== null && tool.strict !== undefined ? { strict: tool.strict } : {}),
    });
  });
  return tools;
}

/** How a call of `name` is shown to a Responses client: its namespace and member, when it had one. */
export function clientCallName(name: string, tools: readonly ToolDefinition[] | undefined): { name: string; namespace?: string } {
  const namespace = tools?.find((tool) => tool.name === name)?.namespace;
  return namespace === undefined ? { name } : { name: namespace.member, namespace: namespace.name };
}

/** Whether a call of `name` is shown as a `custom_tool_call`. */
export function isFreeformCall(name: string, tools: readonly ToolDefinition[] | undefined): boolean {
  return tools?.find((tool) => tool.name === name)?.freeform === true;
}
