import type { ReasoningEffort } from '../../ir/request';

/**
 * Effort ↔ thinking budget. Budgets are a share of the model's max output (low 10 %, medium 30 %,
 * high 60 %), never below the Messages minimum of 1024 tokens.
 */
export const MIN_THINKING_BUDGET = 1024;

export function effortToBudget(effort: ReasoningEffort, maxOutputTokens: number): number {
  const share: Record<ReasoningEffort, number> = {
    none: 0,
    minimal: 0.05,
    low: 0.1,
    medium: 0.3,
    high: 0.6,
    xhigh: 0.8,
    max: 0.9,
  };
  if (effort === 'none') return 0;
  return Math.max(MIN_THINKING_BUDGET, Math.floor(maxOutputTokens * share[effort]));
}

export function budgetToEffort(budgetTokens: number): Exclude<ReasoningEffort, 'none'> {
  if (budgetTokens <= 1024) return 'low';
  if (budgetTokens <= 8192) return 'medium';
  return 'high';
}
