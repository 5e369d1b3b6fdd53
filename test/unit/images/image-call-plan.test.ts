import { Catalog } from '../../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';
import { GatewayError } from '../../../src/errors/gateway-error';
import { planImageCall } from '../../../src/images/image-call-plan';

const catalog = new Catalog(DEFAULT_CATALOG);

function rejection(body: unknown): GatewayError {
  try {
    planImageCall(catalog, body, '/v1/images/generations');
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('planImageCall', () => {
  it('accepts a full valid body and prices n images', () => {
    const plan = planImageCall(
      catalog,
      {
        model: 'gpt-image-1',
        prompt: 'a lighthouse',
        size: '1024x1024',
        n: 2,
        quality: 'high',
        output_format: 'webp',
        output_compression: 80,
      },
      '/v1/images/generations',
    );
    expect(plan.generation).toMatchObject({
      prompt: 'a lighthouse',
      size: '1024x1024',
      n: 2,
      quality: 'high',
      outputFormat: 'webp',
      outputCompression: 80,
    });
    expect(plan.generation.model.id).toBe('gpt-image-1');
    expect(plan.estimatedCredits).toBe(2 * 170_000);
  });

  it('defaults to one 1024x1024 image billed at the standard price', () => {
    const plan = planImageCall(catalog, { model: 'gpt-image-1', prompt: 'x' }, '/v1/images/generations');
    expect(plan.generation.size).toBe('1024x1024');
    expect(plan.generation.n).toBe(1);
    expect(plan.estimatedCredits).toBe(40_000);
  });

  it('coerces multipart string numbers like JSON numbers', () => {
    const plan = planImageCall(catalog, { model: 'gpt-image-1', prompt: 'x', n: '3', output_compression: '50' }, '/v1/images/edits');
    expect(plan.generation.n).toBe(3);
    expect(plan.generation.outputCompression).toBe(50);
  });

  it.each([
    [{ model: 'gpt-image-1' }, 'prompt'],
    [{ model: 'gpt-image-1', prompt: '' }, 'prompt'],
    [{ model: 'gpt-image-1', prompt: 'x', size: '512x512' }, 'size'],
    [{ model: 'gpt-image-1', prompt: 'x', size: '8192x8192' }, 'size'],
    [{ model: 'gpt-image-1', prompt: 'x', size: 'big' }, 'size'],
    [{ model: 'gpt-image-1', prompt: 'x', n: 5 }, 'n'],
    [{ model: 'gpt-image-1', prompt: 'x', n: 0 }, 'n'],
    [{ model: 'gpt-image-1', prompt: 'x', n: 1.5 }, 'n'],
    [{ model: 'gpt-image-1', prompt: 'x', quality: 'ultra' }, 'quality'],
    [{ model: 'gpt-image-1', prompt: 'x', style: 'gothic' }, 'style'],
    [{ model: 'gpt-image-1', prompt: 'x', output_format: 'gif' }, 'output_format'],
    [{ model: 'gpt-image-1', prompt: 'x', output_compression: 101 }, 'output_compression'],
    [{ model: 'gpt-image-1', prompt: 'x', response_format: 'b64_json' }, 'response_format'],
    [{ model: 'gemini-2.5-flash-image', prompt: 'x', quality: 'low' }, 'quality'],
  ])('rejects %o naming %s', (body, param) => {
    const error = rejection(body);
    expect(error.kind).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.message).toContain(param);
  });

  it('names a field once in the message, whatever the schema words', () => {
    expect(rejection({ model: 'gpt-image-1', prompt: 'x', response_format: 'b64_json' }).message).toBe(
      'response_format: only "url" is supported; images are returned as presigned URLs',
    );
    expect(rejection({ model: 'gpt-image-1', prompt: 'x', stream: true }).message).toBe(
      'stream: streamed image generation is not supported',
    );
  });

  it('refuses an unknown model as unsupported_model', () => {
    const error = rejection({ model: 'no-such-model', prompt: 'x' });
    expect(error.kind).toBe('unsupported_model');
    expect(error.param).toBe('model');
  });

  it('refuses a chat model as an invalid request naming model', () => {
    const error = rejection({ model: 'gpt-4.1', prompt: 'x' });
    expect(error.kind).toBe('invalid_request');
    expect(error.param).toBe('model');
    expect(error.message).toMatch(/^model: gpt-4\.1 is a chat model/);
  });

  it('refuses a video model on the images endpoint', () => {
    const error = rejection({ model: 'veo-3', prompt: 'x' });
    expect(error.kind).toBe('invalid_request');
    expect(error.message).toContain('/v1/tasks/submit');
  });

  it('refuses a body that is not an object', () => {
    expect(rejection([1, 2]).kind).toBe('invalid_request');
  });
});
