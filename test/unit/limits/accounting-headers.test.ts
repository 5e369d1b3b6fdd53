import { ALLOW_EVERY_MODEL } from '../../../src/auth/model-allowlist';
import type { AuthenticatedKey } from '../../../src/auth/authenticated-key';
import type { AdmissionFigures } from '../../../src/limits/admission-figures';
import {
  buildAccountingHeaders,
  buildMessagesRateLimitHeaders,
  formatUsd,
  NO_TOKEN_LIMIT,
  quotaRemainingCredits,
  tightestBucket,
} from '../../../src/limits/accounting-headers';

function key(overrides: Partial<AuthenticatedKey> = {}): AuthenticatedKey {
  return {
    keyId: 1,
    accountId: 1,
    accountKind: 'user',
    tier: 'free',
    concurrencyCap: 5,
    groupId: 1,
    groupName: 'default',
    groupFamily: null,
    status: 'active',
    expiresAt: null,
    quotaCredits: 0,
    rateLimits: { fiveHours: 0, oneDay: 0, sevenDays: 0 },
    ipWhitelist: [],
    ipBlacklist: [],
    secretHmac: 'ab',
    allowedModels: ALLOW_EVERY_MODEL,
    ...overrides,
  };
}

function figures(overrides: Partial<AdmissionFigures> = {}): AdmissionFigures {
  return {
    walletCredits: 5_000_000,
    spentCredits: 0,
    leases: 0,
    reservedKeyCredits: 0,
    reservedAccountCredits: 0,
    windows: { '5h': { used: 0, resetAtMs: 0 }, '1d': { used: 0, resetAtMs: 0 }, '7d': { used: 0, resetAtMs: 0 } },
    ...overrides,
  };
}

describe('formatUsd', () => {
  it.each([
    [0, '0'],
    [1, '0.000001'],
    [50_000, '0.05'],
    [1_000_000, '1'],
    [1_234_567, '1.234567'],
    [120_000_000, '120'],
    [-50_000, '-0.05'],
  ])('%d credits → %s', (credits, text) => {
    expect(formatUsd(credits)).toBe(text);
  });
});

describe('buildAccountingHeaders', () => {
  it('omits the X-RateLimit trio when every window is unlimited and reports the wallet as quota', () => {
    expect(buildAccountingHeaders(key(), figures())).toEqual({ 'X-Quota-Remaining-Credits': '5000000' });
  });

  it('reports the tightest limited window in USD with its reset in Unix seconds', () => {
    const k = key({ rateLimits: { fiveHours: 1_000_000, oneDay: 600_000, sevenDays: 0 } });
    const f = figures({
      windows: {
        '5h': { used: 500_000, resetAtMs: 1_000_000 },
        '1d': { used: 500_000, resetAtMs: 2_000_500 },
        '7d': { used: 500_000, resetAtMs: 0 },
      },
    });
    expect(buildAccountingHeaders(k, f)).toEqual({
      'X-RateLimit-Limit': '0.6',
      'X-RateLimit-Remaining': '0.1',
      'X-RateLimit-Reset': '2001',
      'X-Quota-Remaining-Credits': '5000000',
    });
  });

  it('breaks a tie on remaining budget by the later reset, and clamps an overrun at zero', () => {
    const k = key({ rateLimits: { fiveHours: 100, oneDay: 200, sevenDays: 0 } });
    const f = figures({
      windows: { '5h': { used: 150, resetAtMs: 5_000 }, '1d': { used: 250, resetAtMs: 9_000 }, '7d': { used: 250, resetAtMs: 0 } },
    });
    expect(tightestBucket(k, f)).toMatchObject({ name: '1d', remainingCredits: 0 });
    expect(buildAccountingHeaders(k, f)['X-RateLimit-Remaining']).toBe('0');
  });

  it('leaves out X-RateLimit-Reset when asked (concurrency refusals)', () => {
    const k = key({ rateLimits: { fiveHours: 100, oneDay: 0, sevenDays: 0 } });
    const headers = buildAccountingHeaders(k, figures(), { includeReset: false });
    expect(headers['X-RateLimit-Limit']).toBe('0.0001');
    expect(headers).not.toHaveProperty('X-RateLimit-Reset');
  });

  it('caps the key quota left by the wallet, and never reports a negative wallet', () => {
    expect(quotaRemainingCredits(key({ quotaCredits: 3_000_000 }), figures({ spentCredits: 1_000_000 }))).toBe(2_000_000);
    expect(quotaRemainingCredits(key({ quotaCredits: 3_000_000 }), figures({ spentCredits: 1_000_000, walletCredits: 700 }))).toBe(700);
    expect(quotaRemainingCredits(key({ quotaCredits: 3_000_000 }), figures({ spentCredits: 4_000_000 }))).toBe(0);
    expect(quotaRemainingCredits(key(), figures({ walletCredits: -20 }))).toBe(0);
  });

  it('adds the organisation wallet on organisation keys only', () => {
    const org = buildAccountingHeaders(key({ accountKind: 'organization', quotaCredits: 1_000 }), figures());
    expect(org).toEqual({ 'X-Quota-Remaining-Credits': '1000', 'X-Org-Quota-Remaining-Credits': '5000000' });
    expect(buildAccountingHeaders(key(), figures())).not.toHaveProperty('X-Org-Quota-Remaining-Credits');
  });
});

describe('buildMessagesRateLimitHeaders', () => {
  it('describes concurrency as the request limit and no token limit', () => {
    expect(buildMessagesRateLimitHeaders(key({ concurrencyCap: 25 }), figures({ leases: 3 }))).toEqual({
      'x-ratelimit-limit-requests': '25',
      'x-ratelimit-remaining-requests': '22',
      'x-ratelimit-reset-requests': '0',
      'x-ratelimit-limit-tokens': String(NO_TOKEN_LIMIT),
      'x-ratelimit-remaining-tokens': String(NO_TOKEN_LIMIT),
    });
  });

  it('says wait a second when no slot is free', () => {
    const headers = buildMessagesRateLimitHeaders(key({ concurrencyCap: 5 }), figures({ leases: 7 }));
    expect(headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(headers['x-ratelimit-reset-requests']).toBe('1');
  });
});
