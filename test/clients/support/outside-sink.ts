/**
 * The only proxy a CLI is given: every connection it tries to open to anything but the gateway
 * (which it reaches directly, through NO_PROXY) lands here, is noted and refused at once. There is no
 * internet here anyway; the sink makes such attempts fail fast instead of hanging, and visible.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OutsideSink {
  /** The proxy URL for HTTP_PROXY / HTTPS_PROXY / ALL_PROXY. */
  url: string;
  /** Hosts (or URLs) the client tried to reach. */
  attempts: string[];
  close(): Promise<void>;
}

export async function startOutsideSink(): Promise<OutsideSink> {
  const attempts: string[] = [];
  const server: Server = createServer((req, res) => {
    attempts.push(req.url ?? '?');
    res.writeHead(403).end();
  });
  server.on('connect', (req, socket) => {
    attempts.push(req.url ?? '?');
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    attempts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The proxy variables (both spellings: Rust, Node and Bun clients read different ones) pointing at the sink. */
export function proxyEnv(sink: OutsideSink): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
    env[name] = sink.url;
    env[name.toLowerCase()] = sink.url;
  }
  env.NO_PROXY = '127.0.0.1,localhost';
  env.no_proxy = env.NO_PROXY;
  return env;
}
