/** Issue 21 finding 11: the embedded S3 (no signature checks) refuses to start with NODE_ENV=production. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { EMBEDDED_S3_IN_PRODUCTION, startEmbeddedS3 } from '../../src/storage/embedded-s3';

describe('issue 21 finding 11: embedded S3 in production', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'gw-s3-guard-'));
  });
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses NODE_ENV=production with a one-line message naming what to set', async () => {
    const config = loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: 'a'.repeat(64), HMAC_SECRET: 'b'.repeat(64) } as NodeJS.ProcessEnv);
    expect(config.env).toBe('production');
    const refusal = await startEmbeddedS3({ port: 0, directory, environment: config.env }).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toBe(EMBEDDED_S3_IN_PRODUCTION);
    expect((refusal as Error).message).not.toContain('\n');
    expect((refusal as Error).message).toContain('S3_ENDPOINT');
  });

  it('still starts in development and test', async () => {
    const s3 = await startEmbeddedS3({ port: 0, directory, environment: 'development' });
    expect(s3.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await s3.close();
  });
});
