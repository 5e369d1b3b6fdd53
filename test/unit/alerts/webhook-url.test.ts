/** Webhook URLs obey the image URLs' private-address rule unless the operator allows private targets. */
import { checkWebhookUrl } from '../../../src/alerts/webhook-url';
import { isCrossed } from '../../../src/alerts/alert-rule';

describe('webhook URL check', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.1.2.3/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest',
    'http://192.168.0.10/',
  ])('refuses the private or loopback target %s by default', async (url) => {
    await expect(checkWebhookUrl(url, { allowPrivate: false })).rejects.toMatchObject({ kind: 'invalid_request', param: 'url' });
  });

  it('allows a private target when the operator setting allows it, and pins the checked address', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true })).resolves.toMatchObject({ address: '127.0.0.1' });
  });

  it('refuses other schemes, credentials in the URL and non-URLs', async () => {
    for (const url of ['ftp://example.test/x', 'http://user:pass@127.0.0.1/', 'not a url']) {
      await expect(checkWebhookUrl(url, { allowPrivate: true })).rejects.toMatchObject({ param: 'url' });
    }
  });
});

describe('alert crossing', () => {
  it('a share crosses at or above its threshold, a wallet below its amount, and no figure never crosses', () => {
    expect(isCrossed({ kind: 'key_quota', threshold: 0.8, thresholdCredits: null }, 0.8)).toBe(true);
    expect(isCrossed({ kind: 'key_quota', threshold: 0.8, thresholdCredits: null }, 0.79)).toBe(false);
    expect(isCrossed({ kind: 'wallet_below', threshold: null, thresholdCredits: 100 }, 99)).toBe(true);
    expect(isCrossed({ kind: 'wallet_below', threshold: null, thresholdCredits: 100 }, 100)).toBe(false);
    expect(isCrossed({ kind: 'error_rate', threshold: 0.1, thresholdCredits: null }, null)).toBe(false);
  });
});
