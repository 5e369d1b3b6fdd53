/**
 * Responses `namespace` tools (Codex groups its sub-agent and MCP tools so:
 * `{type: 'namespace', name, description, tools: [function tools…]}`, and the model's call names
 * them `{type: 'function_call', namespace, name}`). No other protocol has namespaces, so each member
 * becomes an ordinary function tool named `<namespace>__<member>`, remembered on the IR tool, and a
 * call of that name is shown to the client as the namespace and member again.
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

/** The namespace's function members as flat tools; other members cannot cross and are reported. */
export function flattenNamespaceTool(
  namespace: z.infer<typeof namespaceToolSchema>, path: string, warnings: TranslationWarning[],
): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  namespace.tools.forEach((raw, index) => {
    const member = functionToolSchema.safeParse(raw);
    if (!member.success) {
      warnings.push({ field: `${path}.tools[${index}]`, message: `a ${raw.type} tool inside namespace ${namespace.name} cannot be translated and was dropped` });
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
