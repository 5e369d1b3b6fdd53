import { Catalog } from '../../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';
import { GatewayError } from '../../../src/errors/gateway-error';
import { createLogger } from '../../../src/http/logger';
import { createMetrics } from '../../../src/http/metrics';
import type { Protocol } from '../../../src/ir/protocol';
import { generateImages, type ImageUpstreamContext } from '../../../src/images/generate-images';
import type { ImageGeneration } from '../../../src/images/image-generation';
import type { UpstreamAccount } from '../../../src/upstream/upstream-account';
import { createUpstreamClient, type UpstreamClient } from '../../../src/upstream/upstream-client';
import type { UpstreamDirectory } from '../../../src/upstream/upstream-directory';
import { pngBytes, startFakeUpstream, type FakeUpstream } from './fake-upstream';

const catalog = new Catalog(DEFAULT_CATALOG);
const gptImage = catalog.find('gpt-image-1')!;
const geminiImage = catalog.find('gemini-2.5-flash-image')!;

function account(id: number, protocol: Protocol, baseUrl: string): UpstreamAccount {
  return { id, groupId: 1, name: `a${id}`, protocol, baseUrl, credential: `secret-${id}`, models: ['*'], priority: 0, weight: 1 };
}

describe('generateImages against scripted upstreams', () => {
  let upstream: FakeUpstream;
  let client: UpstreamClient;
  const cooled: number[] = [];
  let context: ImageUpstreamContext;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    client = createUpstreamClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
    const upstreams: UpstreamDirectory = {
      candidates: async () => ({ accounts: [], coolingDown: 0, skipped: [] }),
      accountsOfGroup: async () => [],
      cooldown: (id) => {
        cooled.push(id);
      },
      cooldowns: () => [],
      invalidate: () => undefined,
      close: () => undefined,
    };
    context = {
      config: {
        upstream: {
          connectTimeoutMs: 2_000,
          firstByteTimeoutMs: 5_000,
          idleTimeoutMs: 5_000,
          cooldownMs: 1_000,
          maxAttempts: 3,
          connections: 64,
        },
        imageFetch: { allowPrivate: true, maxBytes: 1_000_000, timeoutMs: 5_000 },
      },
      metrics: createMetrics(),
      logger: createLogger('silent'),
      upstreams,
      upstreamClient: client,
    };
  });
  afterAll(async () => {
    await client.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    cooled.length = 0;
  });

  it('calls the OpenAI images API in its native shape and maps qualities it does not know', async () => {
    upstream.reply(() => ({
      body: {
        created: 1,
        data: [
          { b64_json: pngBytes('1').toString('base64'), revised_prompt: 'Revised: a cat' },
          { b64_json: pngBytes('2').toString('base64') },
        ],
      },
    }));
    const generation: ImageGeneration = {
      model: gptImage,
      prompt: 'a cat',
      size: '1536x1024',
      n: 2,
      quality: 'standard',
      style: 'vivid',
      outputFormat: 'png',
      background: 'opaque',
    };
    const outcome = await generateImages(context, [account(7, 'chat', upstream.url)], generation);
    const [request] = upstream.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/images/generations');
    expect(request.headers.authorization).toBe('Bearer secret-7');
    expect(JSON.parse(request.body.toString())).toEqual({
      model: 'gpt-image-1',
      prompt: 'a cat',
      n: 2,
      size: '1536x1024',
      quality: 'medium',
      output_format: 'png',
      background: 'opaque',
    });
    expect(outcome.account.id).toBe(7);
    expect(outcome.images.map((image) => [image.mediaType, image.revisedPrompt])).toEqual([
      ['image/png', 'Revised: a cat'],
      ['image/png', undefined],
    ]);
    expect(outcome.images[1].bytes.equals(pngBytes('2'))).toBe(true);
    expect(outcome.warnings.map((w) => w.field)).toEqual(['style']);
  });

  it('downloads images an older model answers by URL', async () => {
    upstream.reply((request) =>
      request.url === '/files/img.png'
        ? { headers: { 'content-type': 'image/png' }, body: pngBytes('dl') }
        : { body: { data: [{ url: `${upstream.url}/files/img.png` }] } },
    );
    const outcome = await generateImages(context, [account(1, 'chat', upstream.url)], {
      model: gptImage,
      prompt: 'x',
      size: '1024x1024',
      n: 1,
    });
    expect(outcome.images[0].bytes.equals(pngBytes('dl'))).toBe(true);
  });

  it('sends edits as multipart with image[] and mask', async () => {
    upstream.reply(() => ({ body: { data: [{ b64_json: pngBytes('e').toString('base64') }] } }));
    await generateImages(context, [account(1, 'chat', upstream.url)], {
      model: gptImage,
      prompt: 'add a hat',
      size: '1024x1024',
      n: 1,
      images: [
        { bytes: pngBytes('a'), mediaType: 'image/png', filename: 'a.png' },
        { bytes: pngBytes('b'), mediaType: 'image/png', filename: 'b.png' },
      ],
      mask: { bytes: pngBytes('m'), mediaType: 'image/png', filename: 'mask.png' },
    });
    const [request] = upstream.requests;
    expect(request.url).toBe('/v1/images/edits');
    const form = await new Response(request.body, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
    expect(form.get('prompt')).toBe('add a hat');
    expect(form.get('model')).toBe('gpt-image-1');
    expect(form.getAll('image[]')).toHaveLength(2);
    expect(form.get('mask')).toBeInstanceOf(File);
  });

  it('calls Generate-Content with IMAGE output once per image and takes the text as the revised prompt', async () => {
    upstream.reply(() => ({
      body: {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ text: 'Here is a red fox.' }, { inlineData: { mimeType: 'image/png', data: pngBytes('g').toString('base64') } }],
            },
            finishReason: 'STOP',
          },
        ],
      },
    }));
    const outcome = await generateImages(context, [account(3, 'generate-content', upstream.url)], {
      model: geminiImage,
      prompt: 'a red fox',
      size: '1792x1024',
      n: 2,
      style: 'natural',
      outputFormat: 'jpeg',
      images: [{ bytes: pngBytes('in'), mediaType: 'image/png', filename: 'in.png' }],
    });
    expect(upstream.requests).toHaveLength(2);
    const [request] = upstream.requests;
    expect(request.url).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(request.headers['x-goog-api-key']).toBe('secret-3');
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.parse(request.body.toString())).toEqual({
      contents: [
        {
          role: 'user',
          parts: [{ text: 'a red fox' }, { inlineData: { mimeType: 'image/png', data: pngBytes('in').toString('base64') } }],
        },
      ],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
    expect(outcome.images).toHaveLength(2);
    expect(outcome.images[0]).toMatchObject({ mediaType: 'image/png', revisedPrompt: 'Here is a red fox.' });
    expect(outcome.warnings.map((w) => w.field).sort()).toEqual(['output_format', 'size', 'style']);
  });

  it('refuses a mask on Generate-Content without calling it', async () => {
    const error = await generateImages(context, [account(3, 'generate-content', upstream.url)], {
      model: geminiImage,
      prompt: 'x',
      size: '1024x1024',
      n: 1,
      images: [{ bytes: pngBytes(), mediaType: 'image/png', filename: 'a.png' }],
      mask: { bytes: pngBytes(), mediaType: 'image/png', filename: 'm.png' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('unsupported_feature');
    expect((error as GatewayError).param).toBe('mask');
    expect(upstream.requests).toHaveLength(0);
  });

  it('turns a Generate-Content refusal into a 400, not a provider failure', async () => {
    upstream.reply(() => ({ body: { candidates: [{ content: { parts: [] }, finishReason: 'IMAGE_SAFETY' }] } }));
    const error = await generateImages(context, [account(3, 'generate-content', upstream.url)], {
      model: geminiImage,
      prompt: 'x',
      size: '1024x1024',
      n: 1,
    }).catch((e: unknown) => e);
    expect((error as GatewayError).kind).toBe('invalid_request');
    expect((error as GatewayError).message).toContain('IMAGE_SAFETY');
  });

  it('fails over to the next account on a 5xx and cools the first down', async () => {
    upstream.reply((request) =>
      request.headers.authorization === 'Bearer secret-1'
        ? { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } }
        : { body: { data: [{ b64_json: pngBytes().toString('base64') }] } },
    );
    const outcome = await generateImages(context, [account(1, 'chat', upstream.url), account(2, 'chat', upstream.url)], {
      model: gptImage,
      prompt: 'x',
      size: '1024x1024',
      n: 1,
    });
    expect(outcome.account.id).toBe(2);
    expect(cooled).toEqual([1]);
  });

  it('passes a 400 through with the provider message and does not fail over', async () => {
    upstream.reply(() => ({
      status: 400,
      body: {
        error: { message: "Invalid value: '2048x2048'. Supported values are: '1024x1024'", type: 'invalid_request_error', param: 'size' },
      },
    }));
    const error = await generateImages(context, [account(1, 'chat', upstream.url), account(2, 'chat', upstream.url)], {
      model: gptImage,
      prompt: 'x',
      size: '2048x2048',
      n: 1,
    }).catch((e: unknown) => e);
    expect((error as GatewayError).kind).toBe('invalid_request');
    expect((error as GatewayError).param).toBe('size');
    expect((error as GatewayError).message).toContain('2048x2048');
    expect(upstream.requests).toHaveLength(1);
    expect(cooled).toEqual([]);
  });

  it('gives the last error when every account fails', async () => {
    upstream.reply(() => ({ status: 500, body: { error: { message: 'boom' } } }));
    const error = await generateImages(context, [account(1, 'chat', upstream.url), account(2, 'chat', upstream.url)], {
      model: gptImage,
      prompt: 'x',
      size: '1024x1024',
      n: 1,
    }).catch((e: unknown) => e);
    expect((error as GatewayError).kind).toBe('upstream_error');
    expect(cooled).toEqual([1, 2]);
  });
});
