/** The Images API through the official SDK: real, deterministic PNG bytes, and the API's rules. */
import { inflateSync } from 'node:zlib';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { crc32 } from '../../scripts/provider-sim/images/png';
import { countTextTokens } from '../../scripts/provider-sim/tokens';
import { errorOf, lastRequest, OPENAI_HEADERS, openai, PNG_BASE64, post } from './sim-support';

let sim: Simulator;
let client: OpenAI;
beforeAll(async () => {
  sim = await startSimulator();
  client = openai(sim);
});
afterAll(async () => sim.close());

/** Decodes a PNG far enough to prove it valid: signature, chunk CRCs, IHDR, and inflatable pixel rows. */
function decodePng(bytes: Buffer): { width: number; height: number; firstPixel: number[] } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  const types: string[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    expect(bytes.readUInt32BE(offset + 8 + length)).toBe(crc32(bytes.subarray(offset + 4, offset + 8 + length)));
    types.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(types[0]).toBe('IHDR');
  expect(types[types.length - 1]).toBe('IEND');
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe((width * 3 + 1) * height);
  return { width, height, firstPixel: [raw[1]!, raw[2]!, raw[3]!] };
}

describe('generations', () => {
  it('returns a valid PNG of the asked size as b64_json, with revised prompt and usage', async () => {
    const result = await client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse', size: '1536x1024', quality: 'low' });
    const image = result.data![0]!;
    expect(image.revised_prompt).toBe('Revised: a lighthouse');
    const png = decodePng(Buffer.from(image.b64_json!, 'base64'));
    expect([png.width, png.height]).toEqual([1536, 1024]);
    expect(result.usage).toEqual({
      input_tokens: countTextTokens('a lighthouse'),
      input_tokens_details: { image_tokens: 0, text_tokens: countTextTokens('a lighthouse') },
      output_tokens: 400,
      total_tokens: countTextTokens('a lighthouse') + 400,
    });
    expect(result).toMatchObject({ size: '1536x1024', quality: 'low', output_format: 'png' });
  });

  it('is deterministic in the prompt, and different prompts give different images', async () => {
    const a = await client.images.generate({ model: 'gpt-image-1', prompt: 'same' });
    const b = await client.images.generate({ model: 'gpt-image-1', prompt: 'same' });
    const c = await client.images.generate({ model: 'gpt-image-1', prompt: 'other' });
    expect(a.data![0]!.b64_json).toBe(b.data![0]!.b64_json);
    expect(decodePng(Buffer.from(a.data![0]!.b64_json!, 'base64')).firstPixel).not.toEqual(
      decodePng(Buffer.from(c.data![0]!.b64_json!, 'base64')).firstPixel,
    );
  });

  it('returns n images', async () => {
    const result = await client.images.generate({ model: 'gpt-image-1', prompt: 'three', n: 3 });
    expect(result.data).toHaveLength(3);
  });

  it('serves URLs for sim- models asking response_format url', async () => {
    const result = await client.images.generate({ model: 'sim-image', prompt: 'by url', size: '64x32' as never, response_format: 'url' });
    const url = result.data![0]!.url!;
    expect(url.startsWith(sim.url)).toBe(true);
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('image/png');
    const png = decodePng(Buffer.from(await response.arrayBuffer()));
    expect([png.width, png.height]).toEqual([64, 32]);
  });

  it.each<[string, Record<string, unknown>, RegExp, string]>([
    ['an unsupported size', { size: '512x512' }, /Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'/, 'size'],
    ['response_format on gpt-image-1', { response_format: 'url' }, /Unknown parameter: 'response_format'/, 'response_format'],
    ['n above 10', { n: 11 }, /Expected a value <= 10/, 'n'],
    ['an unknown quality', { quality: 'ultra' }, /Invalid value: 'ultra'/, 'quality'],
    ['a missing prompt', { prompt: undefined }, /Missing required parameter: 'prompt'/, 'prompt'],
  ])('rejects %s with 400', async (_name, extra, message, param) => {
    const answer = await post(sim, '/v1/images/generations', { model: 'gpt-image-1', prompt: 'x', ...extra }, OPENAI_HEADERS);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ type: 'invalid_request_error', param, message: expect.stringMatching(message) });
  });

  it('rejects an unknown image model', async () => {
    const answer = await post(sim, '/v1/images/generations', { model: 'dall-e-9', prompt: 'x' }, OPENAI_HEADERS);
    expect(answer.status).toBe(400);
    expect(errorOf(answer).param).toBe('model');
  });
});

describe('edits', () => {
  it('edits an uploaded image (multipart) into a valid PNG, and logs a summary of the form', async () => {
    const image = await toFile(Buffer.from(PNG_BASE64, 'base64'), 'input.png', { type: 'image/png' });
    const result = await client.images.edit({ model: 'gpt-image-1', image, prompt: 'add a hat', size: '1024x1536' });
    const png = decodePng(Buffer.from(result.data![0]!.b64_json!, 'base64'));
    expect([png.width, png.height]).toEqual([1024, 1536]);
    expect(result.usage?.input_tokens_details).toEqual({ image_tokens: 85, text_tokens: countTextTokens('add a hat') });
    const entry = lastRequest(sim);
    expect(entry).toMatchObject({ path: '/v1/images/edits', protocol: 'images', model: 'gpt-image-1', status: 200 });
    expect(entry.body).toMatchObject({
      fields: { prompt: 'add a hat', model: 'gpt-image-1' },
      files: [{ field: 'image', filename: 'input.png', contentType: 'image/png' }],
    });
  });

  it('rejects a file that is not an image', async () => {
    const image = await toFile(Buffer.from('plain text'), 'notes.txt', { type: 'text/plain' });
    await expect(client.images.edit({ model: 'gpt-image-1', image, prompt: 'x' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('unsupported mimetype'),
    });
  });

  it('rejects an edit without an image', async () => {
    const form = new FormData();
    form.append('model', 'gpt-image-1');
    form.append('prompt', 'x');
    const response = await fetch(`${sim.url}/v1/images/edits`, { method: 'POST', headers: OPENAI_HEADERS, body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe("Missing required parameter: 'image'.");
  });
});
