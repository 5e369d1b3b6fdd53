/** Issue 25 item 1: the gateway's compaction carrier is opaque, tamper-evident and bound to the key's account. */
import { randomBytes } from 'node:crypto';
import {
  deriveCompactionKey,
  isGatewayCompaction,
  openCompaction,
  sealCompaction,
} from '../../../../src/protocols/responses/compaction-carrier';

describe('compaction carrier', () => {
  const key = deriveCompactionKey(randomBytes(32));
  const summary = 'The user wants the build fixed; codeword zebra-4412.';

  it('round-trips a summary for the account it was sealed to, never readable in clear', () => {
    const carrier = sealCompaction(key, 7, summary);
    expect(isGatewayCompaction(carrier)).toBe(true);
    expect(Buffer.from(carrier.slice(7), 'base64url').toString('latin1')).not.toContain('zebra');
    expect(openCompaction(key, 7, carrier, 'input[0]')).toBe(summary);
  });

  it('refuses a carrier issued to another account', () => {
    const carrier = sealCompaction(key, 7, summary);
    expect(() => openCompaction(key, 8, carrier, 'input[0]')).toThrow(/not issued by the gateway to this account/);
  });

  it('refuses an altered carrier, and one sealed under another gateway key', () => {
    const carrier = sealCompaction(key, 7, summary);
    const bytes = Buffer.from(carrier.slice(7), 'base64url');
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    expect(() => openCompaction(key, 7, `gwcmp1.${bytes.toString('base64url')}`, 'input[0]')).toThrow(/altered/);
    expect(() => openCompaction(deriveCompactionKey(randomBytes(32)), 7, carrier, 'input[0]')).toThrow(/altered/);
    expect(() => openCompaction(key, 7, 'gwcmp1.AAAA', 'input[0]')).toThrow(/altered/);
  });

  it("tells a provider's own payload from the gateway's", () => {
    expect(isGatewayCompaction('gAAAAABo-provider-blob')).toBe(false);
  });
});
