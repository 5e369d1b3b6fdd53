/**
 * Decides `max_tokens` and `thinking` for a Messages upstream (PROTOCOLS.md 2.4 and the lead's
 * rules): `max_tokens` is required (default: the model's max output); thinking needs
 * 1024 ≤ budget < max_tokens, so max_tokens is raised to visible + budget within the model max;
 * thinking is turned off when it cannot be served (forced structured-output tool, or a final
 * assistant tool-call turn without this provider's signed thinking block in front).
 */
import type { IrRequest } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { UpstreamTarget } from '../codec';
import { MIN_THINKING_BUDGET, effortToBudget } from '../shared/reasoning-budget';
import type { MessagesMessageParam } from './wire-types';

export interface ThinkingPlan {
  maxTokens: number;
  thinking?: { type: 'enabled'; budget_tokens: number };
}

/** With thinking on, the assistant turn that made the pending tool calls must open with its signed thinking. */
function finalToolTurnLacksThinking(messages: readonly MessagesMessageParam[]): boolean {
  const lastAssistant = [...messages].reverse().find((message) => message.role === 'assistant');
  if (!lastAssistant || !lastAssistant.content.some((block) => block.type === 'tool_use')) return false;
  const first = lastAssistant.content[0];
  // Only signed Messages-origin blocks survive encoding, so a thinking block here is a valid one.
  return first.type !== 'thinking' && first.type !== 'redacted_thinking';
}

export function planMessagesThinking(
  request: IrRequest,
  target: UpstreamTarget,
  messages: readonly MessagesMessageParam[],
  jsonToolMode: boolean,
  warnings: TranslationWarning[],
): ThinkingPlan {
  const modelMax = target.maxOutputTokens;
  const asked = request.sampling.maxOutputTokens;
  if (asked !== undefined && asked > modelMax) {
    warnings.push({ field: 'sampling.maxOutputTokens', message: `lowered to the model's maximum output of ${modelMax} tokens` });
  }
  const visible = Math.min(asked ?? modelMax, modelMax);
  const reasoning = request.reasoning;
  const wanted =
    reasoning !== undefined &&
    reasoning.disabled !== true &&
    reasoning.effort !== 'none' &&
    reasoning.budgetTokens !== 0 &&
    (reasoning.budgetTokens !== undefined || reasoning.effort !== undefined);
  if (!wanted) return { maxTokens: visible };

  if (jsonToolMode) {
    warnings.push({
      field: 'reasoning',
      message: 'thinking cannot be combined with structured output through a tool; thinking was disabled',
    });
    return { maxTokens: visible };
  }
  if (finalToolTurnLacksThinking(messages)) {
    warnings.push({
      field: 'reasoning',
      message: 'the last assistant tool-call turn has no signed thinking block from this provider; thinking was disabled for this request',
    });
    return { maxTokens: visible };
  }

  let budget = Math.max(MIN_THINKING_BUDGET, reasoning.budgetTokens ?? effortToBudget(reasoning.effort ?? 'medium', modelMax));
  const maxTokens = asked === undefined ? visible : Math.min(visible + budget, modelMax);
  if (budget >= maxTokens) {
    budget = maxTokens - 1;
    if (budget < MIN_THINKING_BUDGET) {
      warnings.push({
        field: 'reasoning',
        message: `a thinking budget needs at least ${MIN_THINKING_BUDGET + 1} output tokens; thinking was disabled`,
      });
      return { maxTokens: visible };
    }
    warnings.push({ field: 'reasoning.budgetTokens', message: `lowered to ${budget} to stay below max_tokens (${maxTokens})` });
  }
  return { maxTokens, thinking: { type: 'enabled', budget_tokens: budget } };
}
