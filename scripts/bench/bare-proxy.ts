/**
 * The floor of the benchmark: a bare pass-through proxy (node:http server, undici pool to the
 * simulator), no authentication, admission, metering or billing. Whatever the gateway does costs
 * what it costs above this. `BARE_PROXY_PORT`, `BARE_PROXY_UPSTREAM`.
 */
import http from 'node:http';
import { Pool } from 'undici';

const upstream = new Pool(process.env.BARE_PROXY_UPSTREAM ?? 'http://127.0.0.1:4000', { connections: 256, keepAliveTimeout: 30_000 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

const server = http.createServer((req, res) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
  }
  upstream
    .request({ path: req.url ?? '/', method: (req.method ?? 'GET') as 'POST', headers, body: req })
    .then(async (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode, out);
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.BARE_PROXY_PORT ?? 4100), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  void upstream.close();
  process.exit(0);
});
