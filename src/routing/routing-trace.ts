/**
 * The decision chain of one request's routing: every account that serves the model, and what
 * became of it (skipped and why, failed and how, served, or not reached). Logged for operators;
 * holds account ids and names, never credentials or URLs.
 */
import type { GatewayError } from '../errors/gateway-error';
import type { AccountRef, SkippedAccount } from '../upstream/upstream-directory';
import { failureClass, refusalAfterFailures, type AttemptFailure, type RoutingScope } from './explain-refusal';

export type RoutingStep = { accountId: number; name: string; protocol: string } & (
  | { outcome: 'skipped'; reason: 'cooling_down'; until: string }
  | { outcome: 'skipped'; reason: 'disabled' }
  | { outcome: 'failed'; failure: string }
  | { outcome: 'served'; sticky?: boolean }
  | { outcome: 'not_tried' }
);

function ref(account: AccountRef): { accountId: number; name: string; protocol: string } {
  return { accountId: account.id, name: account.name, protocol: account.protocol };
}

export class RoutingTrace {
  private readonly failures: AttemptFailure[] = [];
  private readonly outcomes = new Map<number, RoutingStep>();

  constructor(
    private readonly scope: RoutingScope,
    private readonly offered: readonly AccountRef[],
    private readonly skipped: readonly SkippedAccount[],
  ) {}

  failed(account: AccountRef, error: GatewayError): void {
    this.failures.push({ account, error });
    this.outcomes.set(account.id, { ...ref(account), outcome: 'failed', failure: failureClass(error) });
  }

  served(account: AccountRef, sticky: boolean): void {
    this.outcomes.set(account.id, { ...ref(account), outcome: 'served', ...(sticky ? { sticky } : {}) });
  }

  /** What to throw when no account served: the failures explained, else the last error as it is. */
  refusal(lastError: GatewayError | undefined): GatewayError | undefined {
    return this.failures.length > 0 ? refusalAfterFailures(this.scope, this.failures, this.offered.length) : lastError;
  }

  /** served: an account answered; refused: none could (or every one failed); abandoned: the client left first. */
  get outcome(): 'served' | 'refused' | 'abandoned' {
    if ([...this.outcomes.values()].some((step) => step.outcome === 'served')) return 'served';
    return this.failures.length > 0 || this.offered.length === 0 ? 'refused' : 'abandoned';
  }

  /** Whether the chain says more than "the first account served" (worth an info log line). */
  get eventful(): boolean {
    return this.skipped.length > 0 || this.failures.length > 0 || ![...this.outcomes.values()].some((step) => step.outcome === 'served');
  }

  steps(): RoutingStep[] {
    const skipped: RoutingStep[] = this.skipped.map((entry) =>
      entry.reason === 'cooling_down'
        ? { ...ref(entry.account), outcome: 'skipped', reason: 'cooling_down', until: new Date(entry.until).toISOString() }
        : { ...ref(entry.account), outcome: 'skipped', reason: 'disabled' },
    );
    const offered = this.offered.map((account): RoutingStep => this.outcomes.get(account.id) ?? { ...ref(account), outcome: 'not_tried' });
    return [...offered, ...skipped];
  }
}
