/** A scripted HTTP upstream for unit tests of the provider calls: records what was sent, answers what it is told. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer | unknown;
}

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  reply(handler: (request: RecordedRequest) => FakeReply): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  let handler: (request: RecordedRequest) => FakeReply = () => ({ status: 500, body: { error: { message: 'no handler' } } });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(recorded);
      const reply = handler(recorded);
      const isRaw = typeof reply.body === 'string' || Buffer.isBuffer(reply.body);
      res.writeHead(reply.status ?? 200, {
        'content-type': isRaw ? 'application/octet-stream' : 'application/json',
        ...(reply.headers ?? {}),
      });
      res.end(isRaw ? (reply.body as string | Buffer) : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(next) {
      handler = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A minimal valid-looking PNG header (the gateway only sniffs the signature). */
export function pngBytes(marker = 'x'): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(`IHDR${marker}`, 'latin1')]);
}
