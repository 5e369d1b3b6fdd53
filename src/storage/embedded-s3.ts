/** The embedded S3 server (s3rver) used by tests and the quick start when no S3 endpoint is set. */
import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

export interface EmbeddedS3 {
  endpoint: string;
  close(): Promise<void>;
}

export async function startEmbeddedS3(options: { port: number; directory: string; host?: string }): Promise<EmbeddedS3> {
  mkdirSync(options.directory, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const server = new S3rver({ address: host, port: options.port, silent: true, directory: options.directory });
  const address = await server.run();
  return {
    endpoint: `http://${host}:${address.port}`,
    close: () => server.close(),
  };
}
