/** What one upstream attempt tells the attempt loop: end the call (how), or try the next account. */
import type { CallEnding } from '../billing/run-paid-call';
import type { GatewayError } from '../errors/gateway-error';

export type AttemptOutcome = { kind: 'end'; ending: CallEnding } | { kind: 'retry'; error: GatewayError };

export const RELEASE: AttemptOutcome = { kind: 'end', ending: { kind: 'release' } };
