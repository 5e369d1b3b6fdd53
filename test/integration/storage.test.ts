import { Readable } from 'node:stream';
import { createTestDependencies, type TestDependencies } from '../support/dependencies';

describe('object storage on the embedded S3 server', () => {
  let deps: TestDependencies;
  beforeAll(async () => {
    deps = await createTestDependencies({ s3: true });
  });
  afterAll(async () => {
    await deps.close();
  });

  it('stores a buffer and serves it through a presigned URL fetched by plain fetch', async () => {
    const bytes = Buffer.from('\x89PNG fake image bytes', 'latin1');
    await deps.storage.put('images/a.png', bytes, 'image/png');
    const url = await deps.storage.presign('images/a.png');
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('86400');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it('stores a stream uncorrupted', async () => {
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(16 * 1024, i));
    await deps.storage.put('videos/v.mp4', Readable.from(chunks), 'video/mp4');
    const response = await fetch(await deps.storage.presign('videos/v.mp4'));
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('refuses an expired presigned URL', async () => {
    await deps.storage.put('images/b.png', Buffer.from('x'), 'image/png');
    const url = await deps.storage.presign('images/b.png', 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('expired');
  });
});
