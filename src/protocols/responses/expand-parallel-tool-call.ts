/**
 * Some OpenAI models emit their internal parallel wrapper as an ordinary function call named
 * `parallel` with `{tool_uses:[{recipient_name:"functions.<name>", parameters:{…}}]}` (vercel/ai
 * #19067). It is expanded into the declared calls it stands for, but only when no declared tool is
 * called `parallel` and every recipient is a declared tool: otherwise the call is left as it came.
 * The declared tools are the keys of the encoder's `toolNames` map (it lists every tool it sent).
 */
import type { ToolCallPart } from '../../ir/parts';
import { restoreToolName } from '../shared/tool-names';

const WRAPPER_NAME = 'parallel';
const RECIPIENT_PREFIX = 'functions.';

export function isUndeclaredParallelWrapper(name: string, toolNames: Record<string, string>): boolean {
  return name === WRAPPER_NAME && toolNames[WRAPPER_NAME] === undefined && Object.keys(toolNames).length > 0;
}

export function expandParallelToolCall(
  callId: string,
  name: string,
  argumentsJson: string,
  toolNames: Record<string, string>,
): ToolCallPart[] | undefined {
  if (!isUndeclaredParallelWrapper(name, toolNames)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return undefined;
  }
  const uses = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>).tool_uses : undefined;
  if (!Array.isArray(uses) || uses.length === 0) return undefined;
  const calls: ToolCallPart[] = [];
  for (const [index, use] of uses.entries()) {
    if (use === null || typeof use !== 'object') return undefined;
    const { recipient_name: recipient, parameters } = use as Record<string, unknown>;
    if (typeof recipient !== 'string' || !recipient.startsWith(RECIPIENT_PREFIX)) return undefined;
    if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) return undefined;
    const sent = recipient.slice(RECIPIENT_PREFIX.length);
    if (sent === '' || toolNames[sent] === undefined) return undefined;
    calls.push({
      type: 'tool_call',
      id: `${callId}_${index}`,
      name: restoreToolName(sent, toolNames),
      argumentsJson: JSON.stringify(parameters),
    });
  }
  return calls;
}
