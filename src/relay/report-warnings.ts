import type { Dependencies } from '../dependencies';
import type { RelayPlan } from './relay-plan';

/** Counts and logs the translation warnings of a call that succeeded. */
export function reportWarnings(plan: RelayPlan, deps: Dependencies): void {
  for (const warning of plan.warnings) {
    deps.metrics.translationWarnings.inc({
      from: plan.protocol,
      to: plan.model.nativeProtocols[0],
      field: warning.field.replace(/\[\d+\]/g, '[]'),
    });
  }
  if (plan.warnings.length > 0) deps.logger.info({ requestId: plan.requestId, warnings: plan.warnings }, 'translation warnings');
}
