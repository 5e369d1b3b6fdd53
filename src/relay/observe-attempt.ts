/**
 * Per-upstream-account figures of one attempt for Prometheus (issue 22): its time to the answer's
 * headers (or its failure) by outcome, and its failures by bounded reason. Labels are the account's
 * configured id and protocol, never anything the client sent.
 */
import type { Dependencies } from '../dependencies';
import type { UpstreamAccount } from '../upstream/upstream-account';

/** Starts timing an attempt; call the result once with the failure reason, or null when the upstream answered with a success. */
export function timeAttempt(
  deps: Pick<Dependencies, 'metrics' | 'clock'>,
  account: Pick<UpstreamAccount, 'id' | 'protocol'>,
): (failure: string | null) => void {
  const startedAt = deps.clock.now();
  const upstreamAccount = String(account.id);
  return (failure) => {
    deps.metrics.upstreamAttemptDuration.observe(
      { upstream_account: upstreamAccount, protocol: account.protocol, outcome: failure === null ? 'ok' : 'error' },
      (deps.clock.now() - startedAt) / 1000,
    );
    if (failure !== null) deps.metrics.upstreamAccountErrors.inc({ upstream_account: upstreamAccount, reason: failure });
  };
}
