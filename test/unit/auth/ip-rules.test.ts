import { parseIpAddress } from '../../../src/auth/ip-address';
import { cidrContains, compileIpRules, createIpRuleEvaluator, evaluateIpRules, formatCidr, parseCidr } from '../../../src/auth/ip-rules';

function contains(cidr: string, ip: string): boolean {
  const block = parseCidr(cidr);
  const address = parseIpAddress(ip);
  if (!block || !address) throw new Error(`bad fixture ${cidr} ${ip}`);
  return cidrContains(block, address);
}

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['192.168.1.7', '192.168.1.7/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:db8:abcd::1/48', '2001:db8:abcd::/48'],
    ['::1', '::1/128'],
    ['::/0', '::/0'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
  ])('%s → %s', (input, expected) => {
    const block = parseCidr(input);
    expect(block && formatCidr(block)).toBe(expected);
  });

  it.each(['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8/8', 'nope/8', '::ffff:10.0.0.0/95', '10.0.0.0/ 8', ''])(
    'refuses %j',
    (input) => {
      expect(parseCidr(input)).toBeUndefined();
    },
  );
});

describe('cidrContains', () => {
  it('matches IPv4 blocks at their boundaries', () => {
    expect(contains('10.0.0.0/8', '10.255.255.255')).toBe(true);
    expect(contains('10.0.0.0/8', '11.0.0.0')).toBe(false);
    expect(contains('192.168.1.0/31', '192.168.1.1')).toBe(true);
    expect(contains('192.168.1.0/31', '192.168.1.2')).toBe(false);
    expect(contains('0.0.0.0/0', '203.0.113.9')).toBe(true);
  });

  it('matches IPv6 blocks at their boundaries', () => {
    expect(contains('2001:db8::/32', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    expect(contains('2001:db8::/32', '2001:db9::')).toBe(false);
    expect(contains('fe80::/10', 'febf::1')).toBe(true);
    expect(contains('fe80::/10', 'fec0::1')).toBe(false);
    expect(contains('::/0', '2001:db8::1')).toBe(true);
  });

  it('never mixes families, except IPv4-mapped IPv6 which is IPv4', () => {
    expect(contains('::/0', '10.0.0.1')).toBe(false);
    expect(contains('0.0.0.0/0', '2001:db8::1')).toBe(false);
    expect(contains('10.0.0.0/8', '::ffff:10.9.9.9')).toBe(true);
    expect(contains('::ffff:10.0.0.0/104', '10.9.9.9')).toBe(true);
  });
});

describe('evaluateIpRules', () => {
  const verdict = (whitelist: string[], blacklist: string[], ip: string) => evaluateIpRules(compileIpRules(whitelist, blacklist), ip);

  it('allows everyone without rules', () => {
    expect(verdict([], [], '203.0.113.1')).toBe('allowed');
    expect(verdict([], [], 'garbage')).toBe('allowed');
  });

  it('requires the whitelist when it is not empty', () => {
    expect(verdict(['127.0.0.2/32'], [], '127.0.0.2')).toBe('allowed');
    expect(verdict(['127.0.0.2/32'], [], '127.0.0.3')).toBe('not_whitelisted');
    expect(verdict(['2001:db8::/32'], [], '2001:db8::5')).toBe('allowed');
  });

  it('lets the blacklist win over the whitelist', () => {
    expect(verdict(['127.0.0.0/8'], ['127.0.0.3'], '127.0.0.3')).toBe('blacklisted');
    expect(verdict(['127.0.0.0/8'], ['127.0.0.3'], '127.0.0.2')).toBe('allowed');
    expect(verdict([], ['2001:db8::/32'], '2001:db8::1')).toBe('blacklisted');
  });

  it('fails closed for an unparsable caller address when rules exist', () => {
    expect(verdict(['10.0.0.0/8'], [], 'unknown')).toBe('not_whitelisted');
    expect(verdict([], ['10.0.0.0/8'], 'unknown')).toBe('blacklisted');
  });

  it('memoizes compiled rules per array without mixing keys', () => {
    const evaluate = createIpRuleEvaluator();
    const listA = ['10.0.0.0/8'];
    const listB = ['192.168.0.0/16'];
    const empty: string[] = [];
    expect(evaluate(listA, empty, '10.1.1.1')).toBe('allowed');
    expect(evaluate(listB, empty, '10.1.1.1')).toBe('not_whitelisted');
    expect(evaluate(listA, listA, '10.1.1.1')).toBe('blacklisted');
    expect(evaluate(listA, empty, '10.1.1.1')).toBe('allowed');
  });
});
