import { parseUsageEvent } from '../../../src/billing/usage-event-schema';

const valid = {
  requestId: 'req_1',
  accountId: 1,
  apiKeyId: null,
  model: 'gpt-5',
  protocol: 'chat',
  upstreamAccountId: 3,
  promptTokens: 10,
  completionTokens: 5,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 2,
  images: 0,
  videoSeconds: 0,
  credits: 42,
  stream: true,
  status: 'aborted',
  startedAt: 1_700_000_000_000,
};

describe('parseUsageEvent', () => {
  it('accepts a well-formed event', () => {
    expect(parseUsageEvent(valid)).toEqual({ event: valid });
  });

  it.each([
    ['negative credits', { credits: -1 }, 'credits'],
    ['fractional credits', { credits: 1.5 }, 'credits'],
    ['credits beyond safe integers', { credits: 2 ** 60 }, 'credits'],
    ['a string token count', { promptTokens: '10' }, 'promptTokens'],
    ['an unknown status', { status: 'failed' }, 'status'],
    ['an empty request id', { requestId: '' }, 'requestId'],
    ['account id zero', { accountId: 0 }, 'accountId'],
  ])('refuses %s, naming the field', (_name, change, field) => {
    const result = parseUsageEvent({ ...valid, ...change });
    expect('error' in result && result.error).toMatch(new RegExp(`^invalid usage event: ${field}:`));
  });

  it('refuses a non-object', () => {
    expect('error' in parseUsageEvent('nope')).toBe(true);
  });
});
