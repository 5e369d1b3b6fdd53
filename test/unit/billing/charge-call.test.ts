import { mediaUsageEvent, tokenCallCharge } from '../../../src/billing/charge-call';
import { computeTokenCost } from '../../../src/billing/compute-cost';
import { Catalog } from '../../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';

const model = new Catalog(DEFAULT_CATALOG).find('gpt-4.1')!;
const call = { requestId: 'req_1', accountId: 7, apiKeyId: 9, upstreamAccountId: 3, startedAt: 1_700_000_000_000 };

describe('the usage events of a token call and of a media call', () => {
  it('records a token call with every token count, its price, and how it ended', () => {
    const usage = { inputTokens: 100, cacheReadTokens: 20, cacheWriteTokens: 5, outputTokens: 40, reasoningTokens: 10 };
    const charge = tokenCallCharge({ ...call, model, protocol: 'chat', usage, stream: true, status: 'aborted' });
    const credits = computeTokenCost(usage, model.prices);
    expect(credits).toBeGreaterThan(0);
    expect(charge).toEqual({
      credits,
      usage: {
        ...call,
        model: 'gpt-4.1',
        protocol: 'chat',
        promptTokens: 125,
        completionTokens: 40,
        cacheReadTokens: 20,
        cacheWriteTokens: 5,
        reasoningTokens: 10,
        images: 0,
        videoSeconds: 0,
        credits,
        stream: true,
        status: 'aborted',
      },
    });
  });

  it('records a media call with no tokens, not streamed, whole, in the same shape', () => {
    const event = mediaUsageEvent({ ...call, model: 'veo-3', protocol: 'tasks', images: 0, videoSeconds: 8, credits: 400 });
    expect(event).toEqual({
      ...call,
      model: 'veo-3',
      protocol: 'tasks',
      promptTokens: 0,
      completionTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      images: 0,
      videoSeconds: 8,
      credits: 400,
      stream: false,
      status: 'ok',
    });
    const token = tokenCallCharge({
      ...call,
      model,
      protocol: 'chat',
      usage: { inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      stream: false,
      status: 'ok',
    });
    expect(Object.keys(event)).toEqual(Object.keys(token.usage!));
  });
});
