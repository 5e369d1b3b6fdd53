/**
 * The embedded S3 server (s3rver) used by tests and the quick start when no S3 endpoint is set. It
 * does not check request signatures (anyone who reaches its port reads and writes every object), so
 * it refuses to start in production: there, S3_ENDPOINT must name a real S3-compatible store.
 */
import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

export interface EmbeddedS3 {
  endpoint: string;
  close(): Promise<void>;
}

export const EMBEDDED_S3_IN_PRODUCTION =
  'the embedded S3 server (s3rver) does not check signatures and is refused with NODE_ENV=production: set S3_ENDPOINT, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY to a real S3-compatible store';

export async function startEmbeddedS3(options: {
  port: number;
  directory: string;
  host?: string;
  /** `config.env` (NODE_ENV): production refuses to start it. */
  environment: 'development' | 'production' | 'test';
}): Promise<EmbeddedS3> {
  if (options.environment === 'production') throw new Error(EMBEDDED_S3_IN_PRODUCTION);
  mkdirSync(options.directory, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const server = new S3rver({ address: host, port: options.port, silent: true, directory: options.directory });
  const address = await server.run();
  return {
    endpoint: `http://${host}:${address.port}`,
    close: () => server.close(),
  };
}
