import { parseScriptReply } from '../../../src/limits/admission-figures';

describe('parseScriptReply', () => {
  it('parses a full reply', () => {
    const reply = parseScriptReply(['rate_limit', '5h', 1_800_000, 10, 20, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(reply).toEqual({
      status: 'rate_limit',
      detail: '5h',
      detailResetMs: 1_800_000,
      figures: {
        walletCredits: 10,
        spentCredits: 20,
        leases: 3,
        reservedKeyCredits: 4,
        reservedAccountCredits: 5,
        windows: { '5h': { used: 6, resetAtMs: 7 }, '1d': { used: 8, resetAtMs: 9 }, '7d': { used: 10, resetAtMs: 11 } },
      },
    });
  });

  it('parses short replies without figures', () => {
    expect(parseScriptReply(['load', 'both'])).toEqual({ status: 'load', detail: 'both', detailResetMs: 0 });
    expect(parseScriptReply(['dead'])).toEqual({ status: 'dead', detail: '', detailResetMs: 0 });
  });

  it('refuses garbage', () => {
    expect(() => parseScriptReply(null)).toThrow();
    expect(() => parseScriptReply([])).toThrow();
    expect(() => parseScriptReply(['ok', '', 0, 'x', 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])).toThrow(/non-number/);
  });
});
