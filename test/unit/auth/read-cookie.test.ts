import { readCookie } from '../../../src/auth/read-cookie';

describe('readCookie', () => {
  it('finds one cookie among several', () => {
    expect(readCookie('a=1; gw_session=abc%2Bdef; b=2', 'gw_session')).toBe('abc+def');
    expect(readCookie('gw_session="quoted"', 'gw_session')).toBe('quoted');
  });

  it('returns undefined when absent, empty or undecodable', () => {
    expect(readCookie(undefined, 'gw_session')).toBeUndefined();
    expect(readCookie('gw_sessionx=1; xgw_session=2', 'gw_session')).toBeUndefined();
    expect(readCookie('gw_session=', 'gw_session')).toBeUndefined();
    expect(readCookie('gw_session=%E0%A4%A', 'gw_session')).toBeUndefined();
  });
});
