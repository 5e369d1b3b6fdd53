import { parseQuery, transactionsQuerySchema, usageQuerySchema } from '../../../src/account/account-query-schemas';
import { decodeCursor, encodeCursor } from '../../../src/account/page-cursor';
import { GatewayError } from '../../../src/errors/gateway-error';

const failure = (run: () => unknown): { param?: string; message: string } => {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return { param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected a GatewayError');
};

describe('usage query', () => {
  it('defaults the page size and parses every filter', () => {
    expect(parseQuery(usageQuerySchema, {})).toEqual({ limit: 20 });
    expect(
      parseQuery(usageQuerySchema, {
        limit: '100',
        api_key_id: '7',
        model: 'gpt-5',
        from: '2026-01-01',
        to: '1767312000',
        other: 'ignored',
      }),
    ).toEqual({
      limit: 100,
      api_key_id: 7,
      model: 'gpt-5',
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date(1_767_312_000_000),
    });
    expect(parseQuery(usageQuerySchema, { from: '2026-01-01T10:00:00+02:00' }).from).toEqual(new Date('2026-01-01T08:00:00Z'));
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ limit: ['1', '2'] }, 'limit'],
    [{ api_key_id: '1e3' }, 'api_key_id'],
    [{ from: 'tomorrow' }, 'from'],
    [{ to: '2026-02-30T25:00:00Z' }, 'to'],
    [{ from: '2026-01-02', to: '2026-01-02' }, 'to'],
    [{ model: '' }, 'model'],
  ])('refuses %j naming %s', (query, param) => {
    const error = failure(() => parseQuery(usageQuerySchema, query));
    expect(error.param).toBe(param);
    expect(error.message.startsWith(`${param}: `)).toBe(true);
  });
});

describe('transactions query', () => {
  it('parses a list of kinds', () => {
    expect(parseQuery(transactionsQuerySchema, { kind: 'topup, refund' })).toEqual({ limit: 20, kind: ['topup', 'refund'] });
  });

  it('refuses an unknown kind', () => {
    expect(failure(() => parseQuery(transactionsQuerySchema, { kind: 'topup,gift' })).param).toBe('kind');
  });
});

describe('page cursors', () => {
  it('round-trips and refuses cursors of another listing or of nobody', () => {
    expect(decodeCursor('usage', encodeCursor('usage', 42))).toBe(42);
    expect(failure(() => decodeCursor('ledger', encodeCursor('usage', 42))).param).toBe('cursor');
    expect(failure(() => decodeCursor('usage', 'garbage')).param).toBe('cursor');
    expect(failure(() => decodeCursor('usage', Buffer.from('usage:0').toString('base64url'))).param).toBe('cursor');
  });
});
