/**
 * The alert evaluator, run periodically by a worker (never on the request path): reads every rule's
 * figure, fires the rules whose figure crossed their threshold (each once: `firing` is set only if it
 * was clear, with the deliveries to the account's webhooks in the same transaction) and re-arms the
 * ones whose figure went back. Returns the new deliveries for the caller to enqueue.
 */
import type { Pool } from 'pg';
import { alertRulesAfter, keyQuotas, markFiring, recordAlertValue, walletBalances } from '../db/repositories/alerts';
import { insertDeliveries } from '../db/repositories/webhooks';
import { inTransaction } from '../db/transaction';
import type { Clock } from '../dependencies';
import { keyWindowShares, windowShareKey, type RequestOutcomeSource } from './alert-figures';
import { ALERT_EVENTS, isCrossed, presentAlertRule, type AlertRule } from './alert-rule';

const RULES_PER_PAGE = 200;

export interface AlertEvaluation {
  evaluated: number;
  fired: number[];
  rearmed: number[];
  deliveryIds: number[];
}

type FigureOf = (rule: AlertRule) => Promise<number | null>;

/** The figures of one page of rules, read in a few queries. */
async function figuresFor(db: Pool, rules: readonly AlertRule[], nowMs: number, outcomes: RequestOutcomeSource): Promise<FigureOf> {
  const keyIds = rules.filter((r) => r.kind === 'key_quota' && r.apiKeyId !== null).map((r) => r.apiKeyId!);
  const quotas = await keyQuotas(db, keyIds);
  const windowAccounts = [...new Set(rules.filter((r) => r.kind === 'key_spend_window').map((r) => r.accountId))];
  const shares = new Map<string, number>();
  for (const accountId of windowAccounts) for (const [key, share] of await keyWindowShares(db, accountId, nowMs)) shares.set(key, share);
  const wallets = await walletBalances(db, [...new Set(rules.filter((r) => r.kind === 'wallet_below').map((r) => r.accountId))]);
  return async (rule) => {
    switch (rule.kind) {
      case 'key_quota': {
        const key = quotas.get(rule.apiKeyId ?? 0);
        return key && key.quota > 0 ? key.spent / key.quota : null;
      }
      case 'key_spend_window':
        return shares.get(windowShareKey(rule.apiKeyId ?? 0, rule.spendWindow ?? '5h')) ?? null;
      case 'wallet_below':
        return wallets.get(rule.accountId) ?? null;
      case 'error_rate': {
        const { requests, errors } = await outcomes(rule.accountId, new Date(nowMs - (rule.windowMinutes ?? 15) * 60_000));
        return requests >= (rule.minRequests ?? 1) && requests > 0 ? errors / requests : null;
      }
    }
  };
}

function alertPayload(rule: AlertRule, value: number, nowMs: number): Record<string, unknown> {
  const shown = presentAlertRule({ ...rule, firing: true, lastValue: value });
  return {
    type: ALERT_EVENTS[rule.kind],
    created_at: new Date(nowMs).toISOString(),
    data: { account_id: rule.accountId, rule: shown, value: shown.last_value },
  };
}

export async function evaluateAlerts(deps: { db: Pool; clock: Clock }, outcomes: RequestOutcomeSource): Promise<AlertEvaluation> {
  const evaluation: AlertEvaluation = { evaluated: 0, fired: [], rearmed: [], deliveryIds: [] };
  const nowMs = deps.clock.now();
  for (let after = 0; ;) {
    const rules = await alertRulesAfter(deps.db, after, RULES_PER_PAGE);
    if (rules.length === 0) break;
    after = rules[rules.length - 1]!.id;
    const figureOf = await figuresFor(deps.db, rules, nowMs, outcomes);
    for (const rule of rules) {
      evaluation.evaluated += 1;
      const value = await figureOf(rule);
      const crossed = isCrossed(rule, value);
      if (crossed && !rule.firing) {
        const deliveries = await inTransaction(deps.db, async (client) => {
          if (!(await markFiring(client, rule.id, value!))) return undefined;
          return insertDeliveries(client, {
            accountId: rule.accountId,
            event: ALERT_EVENTS[rule.kind],
            payload: alertPayload(rule, value!, nowMs),
            alertRuleId: rule.id,
          });
        });
        if (deliveries) {
          evaluation.fired.push(rule.id);
          evaluation.deliveryIds.push(...deliveries);
        }
      } else if (!crossed && rule.firing) {
        await recordAlertValue(deps.db, rule.id, value, true);
        evaluation.rearmed.push(rule.id);
      } else if (value !== rule.lastValue) {
        await recordAlertValue(deps.db, rule.id, value, false);
      }
    }
  }
  return evaluation;
}
