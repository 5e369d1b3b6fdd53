import { PendingEvents } from '../../../src/redis/pending-events';
import type { UsageEvent } from '../../../src/billing/usage-event';

const event = (requestId: string): UsageEvent => ({
  requestId,
  accountId: 1,
  apiKeyId: 2,
  model: 'm',
  protocol: 'chat',
  upstreamAccountId: null,
  promptTokens: 1,
  completionTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  images: 0,
  videoSeconds: 0,
  credits: 3,
  stream: false,
  status: 'ok',
  startedAt: 0,
});

describe('PendingEvents', () => {
  it('holds an event from record to confirmation, whatever happens to its job in between', () => {
    const pending = new PendingEvents<UsageEvent>(10);
    expect(pending.add(event('a'), 0)).toEqual({ added: true, dropped: [] });
    expect(pending.takeUnsent(5).map((e) => e.requestId)).toEqual(['a']);
    expect(pending.state('a')).toBe('sending');
    pending.markEnqueued(['a'], 100);
    expect(pending.state('a')).toBe('enqueued');
    expect(pending.unsentCount).toBe(0);
    // The job vanished (Redis flush): back to unsent, and sent again.
    pending.markUnsent(['a'], 200);
    expect(pending.takeUnsent(5).map((e) => e.requestId)).toEqual(['a']);
    pending.markEnqueued(['a'], 300);
    expect(pending.confirm(['a', 'unknown'])).toBe(1);
    expect(pending.size).toBe(0);
  });

  it('ignores a second record of the same request id', () => {
    const pending = new PendingEvents<UsageEvent>(10);
    pending.add(event('a'), 0);
    expect(pending.add(event('a'), 1)).toEqual({ added: false, dropped: [] });
    expect(pending.size).toBe(1);
    expect(pending.takeUnsent(5)).toHaveLength(1);
  });

  it('takes unsent events oldest first, at most the limit, each once', () => {
    const pending = new PendingEvents<UsageEvent>(10);
    for (const id of ['a', 'b', 'c']) pending.add(event(id), 0);
    expect(pending.takeUnsent(2).map((e) => e.requestId)).toEqual(['a', 'b']);
    expect(pending.takeUnsent(2).map((e) => e.requestId)).toEqual(['c']);
    expect(pending.takeUnsent(2)).toEqual([]);
  });

  it('checks enqueued events once they are older than the delay, and postpones after a check', () => {
    const pending = new PendingEvents<UsageEvent>(10);
    for (const id of ['a', 'b', 'c']) pending.add(event(id), 0);
    pending.takeUnsent(3);
    pending.markEnqueued(['a', 'b'], 1_000);
    pending.markEnqueued(['c'], 5_000);
    expect(pending.dueForCheck(5_999, 5_000, 10)).toEqual([]);
    expect(pending.dueForCheck(6_000, 5_000, 10)).toEqual(['a', 'b']);
    expect(pending.dueForCheck(6_000, 5_000, 1)).toEqual(['a']);
    pending.touch('a', 6_000);
    expect(pending.dueForCheck(6_000, 5_000, 10)).toEqual(['b']);
    expect(pending.dueForCheck(10_000, 5_000, 10)).toEqual(['b', 'c']);
  });

  it('stays within bounds: drops events already in Redis first, then the oldest unsent', () => {
    const pending = new PendingEvents<UsageEvent>(3);
    for (const id of ['a', 'b', 'c']) pending.add(event(id), 0);
    pending.takeUnsent(1);
    pending.markEnqueued(['a'], 0);
    const first = pending.add(event('d'), 0);
    expect(first.dropped.map((d) => [d.event.requestId, d.state])).toEqual([['a', 'enqueued']]);
    const second = pending.add(event('e'), 0);
    expect(second.dropped.map((d) => [d.event.requestId, d.state])).toEqual([['b', 'unsent']]);
    expect(pending.size).toBe(3);
    expect(pending.takeUnsent(10).map((e) => e.requestId)).toEqual(['c', 'd', 'e']);
  });

  it('refuses a non-positive bound', () => {
    expect(() => new PendingEvents<UsageEvent>(0)).toThrow();
  });
});
