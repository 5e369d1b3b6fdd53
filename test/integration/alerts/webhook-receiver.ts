/** A local webhook receiver on 127.0.0.1 (free port): records every call; answers each with the next scripted status (then 200). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

export interface WebhookReceiver {
  url: string;
  calls: ReceivedCall[];
  /** Statuses for the next calls, in order. */
  script(statuses: number[]): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  let scripted: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = scripted.shift() ?? 200;
      calls.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/gateway`,
    calls,
    script(statuses) {
      scripted = [...statuses];
    },
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (calls.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${calls.length} calls, expected ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return calls.slice(0, count);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
