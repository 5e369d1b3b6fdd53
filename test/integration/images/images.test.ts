import OpenAI, { toFile } from 'openai';
import { startBillingWorker } from '../../../workers/billing-worker';
import { encodeMultipart } from '../../../src/images/encode-multipart';
import { createGroup } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { startTaskHarness, type TaskHarness } from '../tasks/task-harness';

const PNG_SIGNATURE = '89504e470d0a1a0a';

async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('image endpoints on real Redis, PostgreSQL, S3 and the simulator', () => {
  let h: TaskHarness;
  let billing: { close(): Promise<void> };
  let client: OpenAI;

  beforeAll(async () => {
    h = await startTaskHarness({ simulator: { imageMs: 300 } });
    billing = await startBillingWorker(h.deps, { concurrency: 4, lingerMs: 1 });
    client = new OpenAI({ apiKey: h.owner.key, baseURL: `${h.api.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await billing.close();
    await h.close();
  });

  it('generates with the family-2 model: the URL downloads the PNG by plain fetch, billed per image', async () => {
    const response = await fetch(`${h.api.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.owner.key}` },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', size: '1024x1024', n: 2, quality: 'high' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { created: number; data: Array<{ url: string; revised_prompt?: string }> };
    expect(body.data).toHaveLength(2);
    expect(body.data[0].revised_prompt).toBe('Revised: a lighthouse at dusk');
    const url = new URL(body.data[0].url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('86400');
    const image = await download(body.data[0].url);
    expect(image.status).toBe(200);
    expect(image.type).toBe('image/png');
    expect(image.bytes.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
    expect(image.bytes.readUInt32BE(16)).toBe(1024); // IHDR width
    expect(response.headers.get('x-request-cost-credits')).toBe(String(2 * 170_000));
    expect(response.headers.get('x-quota-remaining-credits')).not.toBeNull();

    // The usage event reaches the ledger through the billing worker: one charge, the request id as reference.
    const requestId = response.headers.get('x-request-id')!;
    const deadline = Date.now() + 15_000;
    while ((await h.ledger(requestId)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await h.ledger(requestId)).toEqual([{ kind: 'charge', amount_credits: -340_000, reference: requestId }]);
    const usage = await h.deps.db.query('SELECT images, credits, model, protocol FROM usage_rows WHERE request_id = $1', [requestId]);
    expect(usage.rows).toEqual([{ images: 2, credits: 340_000, model: 'gpt-image-1', protocol: 'images' }]);
  });

  it('generates with the family-3 model through Generate-Content image output', async () => {
    const result = await client.images.generate({
      model: 'gemini-2.5-flash-image',
      prompt: 'a red fox in snow',
      size: '1536x1024' as '1024x1024',
    });
    expect(result.data).toHaveLength(1);
    const [item] = result.data!;
    expect(typeof item.revised_prompt).toBe('string');
    const image = await download(item.url!);
    expect(image.bytes.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
    // 3:2 at the model's own pixel size: wider than tall.
    expect(image.bytes.readUInt32BE(16)).toBeGreaterThan(image.bytes.readUInt32BE(20));
    const sent = h.sim.requests.filter((request) => request.path.includes('gemini-2.5-flash-image:generateContent')).at(-1);
    expect(sent?.headers['x-goog-api-key']).toBe('sim-key');
  });

  it('edits through the official SDK (multipart) with both models', async () => {
    const source = await download((await client.images.generate({ model: 'gpt-image-1', prompt: 'a plain square' })).data![0].url!);
    const edited = await client.images.edit({
      model: 'gpt-image-1',
      prompt: 'add a hat',
      image: await toFile(source.bytes, 'source.png', { type: 'image/png' }),
    });
    expect((await download(edited.data![0].url!)).bytes.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
    const sent = h.sim.requests.filter((request) => request.path === '/v1/images/edits').at(-1);
    expect(sent?.status).toBe(200);

    const gemini = await client.images.edit({
      model: 'gemini-2.5-flash-image',
      prompt: 'make it blue',
      image: await toFile(source.bytes, 'source.png', { type: 'image/png' }),
    });
    expect((await download(gemini.data![0].url!)).status).toBe(200);
  });

  it('edits with several images and a mask sent as image[] and mask', async () => {
    const source = await download((await client.images.generate({ model: 'gpt-image-1', prompt: 'another square' })).data![0].url!);
    const { body, contentType } = encodeMultipart([
      { name: 'model', value: 'gpt-image-1' },
      { name: 'prompt', value: '合并这两张图' },
      { name: 'n', value: '2' },
      { name: 'image[]', filename: 'a.png', contentType: 'image/png', bytes: source.bytes },
      { name: 'image[]', filename: 'b.png', contentType: 'image/png', bytes: source.bytes },
      { name: 'mask', filename: 'm.png', contentType: 'image/png', bytes: source.bytes },
    ]);
    const response = await fetch(`${h.api.url}/v1/images/edits`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-api-key': h.owner.key },
      body,
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { data: Array<{ url: string; revised_prompt: string }> };
    expect(answer.data).toHaveLength(2);
    expect(answer.data[0].revised_prompt).toBe('Revised: 合并这两张图');
  });

  it.each([
    [{ model: 'gpt-image-1', prompt: 'x', size: '512x512' }, 400, 'invalid_request_error', 'size'],
    [{ model: 'gpt-image-1', prompt: 'x', size: '5000x5000' }, 400, 'invalid_request_error', 'size'],
    [{ model: 'gpt-image-1', prompt: 'x', n: 5 }, 400, 'invalid_request_error', 'n'],
    [{ model: 'gpt-image-1', prompt: 'x', quality: 'ultra' }, 400, 'invalid_request_error', 'quality'],
    [{ model: 'gpt-image-1', prompt: 'x', output_compression: 500 }, 400, 'invalid_request_error', 'output_compression'],
    [{ model: 'gpt-image-1' }, 400, 'invalid_request_error', 'prompt'],
    [{ model: 'gpt-4.1', prompt: 'x' }, 400, 'invalid_request_error', 'model'],
    [{ model: 'nope-1', prompt: 'x' }, 400, 'unsupported_model', 'model'],
  ])('rejects %o with %i %s naming %s, free', async (body, status, code, param) => {
    expect(await h.api.drainUsage()).toBe(true);
    const before = await h.wallet();
    const reply = await h.post(`${h.api.url}/v1/images/generations`, body);
    expect(reply.status).toBe(status);
    const error = reply.body.error as { code: string; param: string; message: string };
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
    expect(reply.headers.get('x-quota-remaining-credits')).not.toBeNull();
    expect(await h.api.drainUsage()).toBe(true);
    expect(await h.wallet()).toEqual(before);
  });

  it('reports a field the upstream has no place for instead of dropping it silently', async () => {
    const reply = await h.post(`${h.api.url}/v1/images/generations`, { model: 'gpt-image-1', prompt: 'styled', style: 'vivid' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-gateway-warnings')).toBe('style');
    const sent = h.sim.requests.filter((request) => request.path === '/v1/images/generations').at(-1);
    expect(sent?.body).not.toHaveProperty('style');
  });

  it('passes the provider refusal of a size it cannot draw through as a 400 naming size', async () => {
    const reply = await h.post(`${h.api.url}/v1/images/generations`, { model: 'gpt-image-1', prompt: 'x', size: '2048x2048' });
    expect(reply.status).toBe(400);
    const error = reply.body.error as { param: string; message: string };
    expect(error.param).toBe('size');
    expect(error.message).toContain('2048x2048');
  });

  it('refuses a mask on the Generate-Content model', async () => {
    const source = await download((await client.images.generate({ model: 'gpt-image-1', prompt: 'mask source' })).data![0].url!);
    const { body, contentType } = encodeMultipart([
      { name: 'model', value: 'gemini-2.5-flash-image' },
      { name: 'prompt', value: 'x' },
      { name: 'image', filename: 'a.png', contentType: 'image/png', bytes: source.bytes },
      { name: 'mask', filename: 'm.png', contentType: 'image/png', bytes: source.bytes },
    ]);
    const response = await fetch(`${h.api.url}/v1/images/edits`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${h.owner.key}` },
      body,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({
      code: 'unsupported_feature',
      param: 'mask',
    });
  });

  it('refuses an edit that is not multipart', async () => {
    const reply = await h.post(`${h.api.url}/v1/images/edits`, { model: 'gpt-image-1', prompt: 'x' });
    expect(reply.status).toBe(400);
  });

  it('answers 401 without a key and 503 for a group that cannot route the model', async () => {
    const anonymous = await fetch(`${h.api.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-image-1","prompt":"x"}',
    });
    expect(anonymous.status).toBe(401);
    const emptyGroup = await createGroup(h.deps.db, { name: 'no-images', family: null });
    const key = await insertApiKey(h.deps.db, h.deps.crypto, { accountId: h.owner.accountId, groupId: emptyGroup, name: 'no-images' });
    const reply = await h.post(`${h.api.url}/v1/images/generations`, { model: 'gpt-image-1', prompt: 'x' }, key.secret);
    expect(reply.status).toBe(503);
    expect((reply.body.error as { message: string }).message).toContain('no available account');
  });

  it('keeps the event loop free while an image is being generated', async () => {
    // The simulator takes 300 ms per image; a free request sent after it must be answered first.
    const order: string[] = [];
    const image = h
      .post(`${h.api.url}/v1/images/generations`, { model: 'gpt-image-1', prompt: 'slow one' })
      .then(() => order.push('image'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await h.post(`${h.api.url}/v1/tasks/query`, { task_id: 'task_doesnotexistdoesnotexist00' }).then(() => order.push('query'));
    await image;
    expect(order).toEqual(['query', 'image']);
  });
});
