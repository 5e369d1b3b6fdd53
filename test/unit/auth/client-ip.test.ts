import { createClientIpResolver, resolveClientIp } from '../../../src/auth/client-ip';

describe('resolveClientIp', () => {
  const proxies = ['127.0.0.4', '10.0.0.0/8'];

  it('uses the socket address when no proxy is trusted', () => {
    expect(resolveClientIp('127.0.0.2', '198.51.100.7', [])).toBe('127.0.0.2');
  });

  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(resolveClientIp('203.0.113.5', '198.51.100.7', proxies)).toBe('203.0.113.5');
  });

  it('normalizes IPv4-mapped socket addresses', () => {
    expect(resolveClientIp('::ffff:127.0.0.2', undefined, proxies)).toBe('127.0.0.2');
    expect(resolveClientIp('::ffff:127.0.0.4', '198.51.100.7', proxies)).toBe('198.51.100.7');
  });

  it('walks the chain right to left through trusted proxies only', () => {
    // client spoofs 1.1.1.1; real client 198.51.100.7; then two trusted hops.
    expect(resolveClientIp('127.0.0.4', '1.1.1.1, 198.51.100.7, 10.1.1.1', proxies)).toBe('198.51.100.7');
  });

  it('returns the leftmost hop when every hop is trusted', () => {
    expect(resolveClientIp('127.0.0.4', '10.0.0.9, 10.0.0.8', proxies)).toBe('10.0.0.9');
  });

  it('stops at a garbage hop and keeps the last believed address', () => {
    expect(resolveClientIp('127.0.0.4', '198.51.100.7, not-an-ip, 10.0.0.8', proxies)).toBe('10.0.0.8');
    expect(resolveClientIp('127.0.0.4', 'not-an-ip', proxies)).toBe('127.0.0.4');
  });

  it('accepts ports, brackets and IPv6 in the chain', () => {
    expect(resolveClientIp('127.0.0.4', '198.51.100.7:4711', proxies)).toBe('198.51.100.7');
    expect(resolveClientIp('127.0.0.4', '[2001:DB8::1]:443', proxies)).toBe('2001:db8::1');
    expect(resolveClientIp('::1', '2001:db8::9', ['::1/128'])).toBe('2001:db8::9');
  });

  it('says unknown without a socket address', () => {
    expect(resolveClientIp(undefined, undefined, proxies)).toBe('unknown');
  });

  it('resolves the same with a precompiled resolver', () => {
    const resolve = createClientIpResolver(proxies);
    expect(resolve('127.0.0.4', '1.1.1.1, 198.51.100.7')).toBe('198.51.100.7');
    expect(resolve('127.0.0.9', '198.51.100.7')).toBe('127.0.0.9');
  });
});
