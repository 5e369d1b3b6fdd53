import { GatewayError } from '../../../src/errors/gateway-error';
import { RoutingTrace } from '../../../src/routing/routing-trace';

const a = { id: 1, name: 'primary', protocol: 'messages' as const };
const b = { id: 2, name: 'backup', protocol: 'chat' as const };
const c = { id: 3, name: 'spare', protocol: 'messages' as const };
const scope = { groupName: 'g', model: 'claude-sonnet-4-5' };

describe('RoutingTrace: the decision chain operators read', () => {
  it('lists every candidate with how it failed, which one served, and who was skipped and why', () => {
    const trace = new RoutingTrace(
      scope,
      [a, b, c],
      [
        { account: { id: 4, name: 'cold', protocol: 'messages' }, reason: 'cooling_down', until: Date.UTC(2026, 0, 1) },
        { account: { id: 5, name: 'off', protocol: 'messages' }, reason: 'disabled' },
      ],
    );
    trace.failed(a, new GatewayError('overloaded', 'x', { upstream: { status: 529 } }));
    trace.served(b, true);
    expect(trace.eventful).toBe(true);
    expect(trace.steps()).toEqual([
      { accountId: 1, name: 'primary', protocol: 'messages', outcome: 'failed', failure: 'overloaded (HTTP 529)' },
      { accountId: 2, name: 'backup', protocol: 'chat', outcome: 'served', sticky: true },
      { accountId: 3, name: 'spare', protocol: 'messages', outcome: 'not_tried' },
      { accountId: 4, name: 'cold', protocol: 'messages', outcome: 'skipped', reason: 'cooling_down', until: '2026-01-01T00:00:00.000Z' },
      { accountId: 5, name: 'off', protocol: 'messages', outcome: 'skipped', reason: 'disabled' },
    ]);
  });

  it("explains a request every tried account failed, keeping the last failure's status and Retry-After", () => {
    const trace = new RoutingTrace(scope, [a, b, c], []);
    trace.failed(a, new GatewayError('timeout', 'upstream timed out'));
    trace.failed(b, new GatewayError('rate_limit', 'slow down', { upstream: { status: 429 }, retryAfterSeconds: 7 }));
    const refusal = trace.refusal(undefined)!;
    expect(refusal.status).toBe(429);
    expect(refusal.retryAfterSeconds).toBe(7);
    // The upstream's own words of the last rate limit follow the list (issue 25: clients act on them).
    expect(refusal.message).toBe(
      'no available account: the 2 accounts tried of 3 serving model claude-sonnet-4-5 in group g failed this request (account #1: timeout; account #2: rate_limit (HTTP 429)): slow down',
    );
  });

  it('is quiet when the first account served', () => {
    const trace = new RoutingTrace(scope, [a], []);
    trace.served(a, false);
    expect(trace.eventful).toBe(false);
  });
});
