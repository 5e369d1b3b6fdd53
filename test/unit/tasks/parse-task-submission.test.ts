import { Catalog } from '../../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';
import { GatewayError } from '../../../src/errors/gateway-error';
import { parseTaskSubmission } from '../../../src/tasks/parse-task-submission';
import { pngBytes } from '../images/fake-upstream';

const catalog = new Catalog(DEFAULT_CATALOG);
const group = { groupId: 4, groupName: 'default', groupFamily: null };
const parse = (body: unknown) => parseTaskSubmission(catalog, body, group, { maxImageBytes: 1_000 });

function rejection(body: unknown): GatewayError {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('parseTaskSubmission: video', () => {
  it('accepts a CJK prompt and fills defaults from the model', () => {
    const submission = parse({ model: 'veo-3', prompt: '一只在雨中奔跑的柴犬，电影感' });
    expect(submission.request).toEqual({
      kind: 'video',
      prompt: '一只在雨中奔跑的柴犬，电影感',
      durationSeconds: 8,
      resolution: '720p',
      aspectRatio: '16:9',
      group,
    });
    expect(submission.estimatedCredits).toBe(8 * 150_000);
  });

  it('prices by resolution and duration', () => {
    const submission = parse({
      model: 'veo-3',
      prompt: 'x',
      duration_seconds: 5,
      resolution: '1080p',
      aspect_ratio: '9:16',
      seed: 7,
      negative_prompt: 'blur',
    });
    expect(submission.request).toMatchObject({
      durationSeconds: 5,
      resolution: '1080p',
      aspectRatio: '9:16',
      seed: 7,
      negativePrompt: 'blur',
    });
    expect(submission.estimatedCredits).toBe(5 * 400_000);
  });

  it('takes an initial image as a data URL or as {data, mime_type}, typed by its bytes', () => {
    const base64 = pngBytes().toString('base64');
    expect(parse({ model: 'veo-3', prompt: 'x', image: `data:image/jpeg;base64,${base64}` }).request).toMatchObject({
      image: { mediaType: 'image/png', data: base64 },
    });
    expect(parse({ model: 'veo-3', prompt: 'x', image: { data: base64, mime_type: 'image/png' } }).request).toMatchObject({
      image: { mediaType: 'image/png', data: base64 },
    });
  });

  it.each([
    [{ model: 'veo-3' }, 'prompt'],
    [{ model: 'veo-3', prompt: '   ' }, 'prompt'],
    [{ model: 'veo-3', prompt: 'x', duration_seconds: 9 }, 'duration_seconds'],
    [{ model: 'veo-3', prompt: 'x', duration_seconds: 0 }, 'duration_seconds'],
    [{ model: 'veo-3', prompt: 'x', duration_seconds: 2.5 }, 'duration_seconds'],
    [{ model: 'veo-3', prompt: 'x', resolution: '4k' }, 'resolution'],
    [{ model: 'veo-3', prompt: 'x', aspect_ratio: '4:3' }, 'aspect_ratio'],
    [{ model: 'veo-3', prompt: 'x', image: 'https://example.com/a.png' }, 'image'],
    [{ model: 'veo-3', prompt: 'x', image: { data: Buffer.from('not an image').toString('base64') } }, 'image'],
    [{ model: 'veo-3', prompt: 'x', image: { data: Buffer.concat([pngBytes(), Buffer.alloc(2_000)]).toString('base64') } }, 'image'],
    [{ prompt: 'x' }, 'model'],
  ])('rejects %o naming %s', (body, param) => {
    const error = rejection(body);
    expect(error.kind).toBe('invalid_request');
    expect(error.param).toBe(param);
  });

  it('words a wrong initial image for both accepted shapes, and names a bad field inside the object', () => {
    expect(rejection({ model: 'veo-3', prompt: 'x', image: 123 })).toMatchObject({
      param: 'image',
      message: 'image: must be a data URL (data:image/png;base64,...) or {data, mime_type}',
    });
    expect(rejection({ model: 'veo-3', prompt: 'x', image: { data: 5 } })).toMatchObject({
      param: 'image.data',
      message: expect.stringMatching(/^image\.data: /) as unknown,
    });
  });

  it('names the model maximum when the duration is too long', () => {
    expect(rejection({ model: 'veo-3', prompt: 'x', duration_seconds: 12 }).message).toContain('at most 8 seconds');
  });
});

describe('parseTaskSubmission: image batch and models', () => {
  it('takes a list of prompts and prices every image', () => {
    const submission = parse({ model: 'gpt-image-1', prompts: ['a', 'b', 'c', 'd'], quality: 'high' });
    expect(submission.request).toEqual({
      kind: 'image_batch',
      prompts: ['a', 'b', 'c', 'd'],
      n: 1,
      size: '1024x1024',
      quality: 'high',
      group,
    });
    expect(submission.estimatedCredits).toBe(4 * 170_000);
  });

  it('accepts a single prompt as a batch of one, with n images', () => {
    const submission = parse({ model: 'gemini-2.5-flash-image', prompt: 'a', n: 3 });
    expect(submission.request).toMatchObject({ prompts: ['a'], n: 3 });
    expect(submission.estimatedCredits).toBe(3 * 39_000);
  });

  it.each([
    [{ model: 'gpt-image-1' }, 'prompts'],
    [{ model: 'gpt-image-1', prompts: [] }, 'prompts'],
    [{ model: 'gpt-image-1', prompts: Array.from({ length: 17 }, () => 'p') }, 'prompts'],
    [{ model: 'gpt-image-1', prompts: ['a'], prompt: 'b' }, 'prompts'],
    [{ model: 'gpt-image-1', prompts: ['a', ''] }, 'prompts[1]'],
    [{ model: 'gpt-image-1', prompts: ['a'], size: '256x256' }, 'size'],
    [{ model: 'gpt-image-1', prompts: ['a'], n: 5 }, 'n'],
    [{ model: 'gpt-image-1', prompts: ['a'], quality: 'ultra' }, 'quality'],
  ])('rejects %o naming %s', (body, param) => {
    const error = rejection(body);
    expect(error.kind).toBe('invalid_request');
    expect(error.param).toBe(param);
  });

  it('refuses unknown and chat models like the other endpoints', () => {
    expect(rejection({ model: 'nope', prompt: 'x' }).kind).toBe('unsupported_model');
    const chat = rejection({ model: 'gpt-4.1', prompt: 'x' });
    expect([chat.kind, chat.param]).toEqual(['invalid_request', 'model']);
  });
});
