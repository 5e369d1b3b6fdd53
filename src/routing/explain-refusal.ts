/**
 * Routing refusals that say which case they are (docs/relay.md "Refusals"): no account of the group
 * serves the model; every account serving it is cooling down (with the earliest return and
 * `Retry-After`), or disabled, or a mix of both; or every account tried failed this request (with
 * each one's failure class). Accounts are named by id only: credentials, URLs and operator names
 * never reach the caller.
 */
import { GatewayError } from '../errors/gateway-error';
import type { AccountRef, SkippedAccount } from '../upstream/upstream-directory';

export interface RoutingScope {
  groupName: string;
  model: string;
}

export interface AttemptFailure {
  account: AccountRef;
  error: GatewayError;
}

const PREFIX = 'no available account';

/** The class of one failure as a caller may read it: the error kind and the upstream status. */
export function failureClass(error: GatewayError): string {
  return error.upstream ? `${error.kind} (HTTP ${error.upstream.status})` : error.kind;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** No account could even be tried: none serves the model, or every one serving it is skipped. */
export function refusalWithoutCandidates(scope: RoutingScope, skipped: readonly SkippedAccount[], now: number): GatewayError {
  const where = `group ${scope.groupName}`;
  if (skipped.length === 0) {
    return new GatewayError('no_available_account', `${PREFIX}: no account of ${where} serves model ${scope.model}`);
  }
  const cooling = skipped.flatMap((entry) => (entry.reason === 'cooling_down' ? [entry.until] : []));
  const disabled = skipped.length - cooling.length;
  const all = `all ${plural(skipped.length, 'account')} of ${where} serving model ${scope.model}`;
  if (cooling.length === 0) {
    return new GatewayError('no_available_account', `${PREFIX}: ${all} ${skipped.length === 1 ? 'is' : 'are'} disabled`);
  }
  const earliest = Math.min(...cooling);
  const retryAfterSeconds = Math.max(1, Math.ceil((earliest - now) / 1000));
  const back = `the earliest is back at ${new Date(earliest).toISOString()}`;
  const message =
    disabled === 0
      ? `${PREFIX}: ${all} ${skipped.length === 1 ? 'is' : 'are'} cooling down after failures; ${back}`
      : `${PREFIX}: ${all} are unavailable: ${cooling.length} cooling down after failures (${back}), ${disabled} disabled`;
  return new GatewayError('no_available_account', message, { retryAfterSeconds });
}

/**
 * Every account tried failed before a byte reached the client. The status and kind are the last
 * failure's (what the client would have seen from one account); the message lists them all, then
 * the upstream's own words of a last rate limit or overload.
 */
export function refusalAfterFailures(scope: RoutingScope, failures: readonly AttemptFailure[], servingCount: number): GatewayError {
  const last = failures[failures.length - 1].error;
  const tried =
    failures.length === servingCount
      ? `all ${plural(failures.length, 'account')} serving model ${scope.model} in group ${scope.groupName}`
      : `the ${plural(failures.length, 'account')} tried of ${servingCount} serving model ${scope.model} in group ${scope.groupName}`;
  const each = failures.map((failure) => `account #${failure.account.id}: ${failureClass(failure.error)}`).join('; ');
  // A rate limit or an overload keeps the upstream's own words after the list: clients act on them.
  const said = (last.kind === 'rate_limit' || last.kind === 'overloaded') && last.upstream !== undefined ? `: ${last.message}` : '';
  return new GatewayError(last.kind, `${PREFIX}: ${tried} failed this request (${each})${said}`, {
    status: last.status,
    ...(last.retryAfterSeconds !== undefined ? { retryAfterSeconds: last.retryAfterSeconds } : {}),
    ...(last.upstream ? { upstream: last.upstream } : {}),
  });
}
