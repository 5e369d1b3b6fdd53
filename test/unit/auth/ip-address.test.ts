import { formatIpAddress, normalizeIpAddress, parseIpAddress } from '../../../src/auth/ip-address';

describe('parseIpAddress', () => {
  it.each([
    ['127.0.0.1', 4, 0x7f000001n],
    ['0.0.0.0', 4, 0n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::1', 6, 1n],
    ['::', 6, 0n],
    ['2001:db8::1', 6, 0x20010db8000000000000000000000001n],
    ['2001:DB8:0:0:0:0:0:1', 6, 0x20010db8000000000000000000000001n],
    ['fe80::1%eth0', 6, 0xfe800000000000000000000000000001n],
    ['::ffff:10.1.2.3', 4, 0x0a010203n],
    ['::ffff:a01:203', 4, 0x0a010203n],
    ['64:ff9b::192.0.2.33', 6, 0x0064ff9b0000000000000000c0000221n],
  ])('parses %s', (text, version, value) => {
    expect(parseIpAddress(text)).toEqual({ version, value });
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.-1',
    'a.b.c.d',
    ':::',
    '1::2::3',
    '2001:db8:0:0:0:0:0:0:1',
    '12345::',
    'g::1',
    '1:2:3:4:5:6:7',
    '::ffff:1.2.3',
    'localhost',
  ])('refuses %j', (text) => {
    expect(parseIpAddress(text)).toBeUndefined();
  });
});

describe('formatIpAddress / normalizeIpAddress', () => {
  it.each([
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['1:0:2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['::FFFF:192.168.1.1', '192.168.1.1'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['not-an-ip', 'not-an-ip'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeIpAddress(input)).toBe(expected);
  });

  it('round-trips through parse and format', () => {
    for (const text of ['fe80::1:2', '2001:db8::', '::1', '1.2.3.4']) {
      const parsed = parseIpAddress(text);
      expect(parsed && formatIpAddress(parsed)).toBe(text);
    }
  });
});
