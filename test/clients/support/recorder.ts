/**
 * A recording pass-through between one cell's client and the gateway: every request is forwarded
 * unchanged and its answer streamed back unchanged, while the recorder notes the status, the body of
 * each non-2xx answer and the first malformed server-sent event. A failing cell then names the first
 * bad answer of its own requests, not of a neighbour running at the same time.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface Exchange {
  method: string;
  path: string;
  status: number;
  /** The answer's body when the status is not 2xx (first 2,000 characters). */
  errorBody?: string;
  /** The first `data:` line of an event stream that is neither JSON nor `[DONE]`. */
  malformedEvent?: string;
  /** The gateway's `x-gateway-warnings` header, when it sent one. */
  warnings?: string;
  /** The request body (first 1,000,000 characters), for cells that check what the client sent. */
  requestBody?: string;
}

export interface Recorder {
  url: string;
  exchanges: Exchange[];
  /** The first non-2xx answer or malformed event, as one line; undefined when every exchange was clean. */
  firstProblem(): string | undefined;
  /** Every `x-gateway-warnings` header the gateway sent, with its request. */
  warnings(): string[];
  /** `METHOD path status` of every request, in order. */
  requestList(): string;
  close(): Promise<void>;
}

function malformedData(text: string): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    try {
      JSON.parse(data);
    } catch {
      return data.slice(0, 500);
    }
  }
  return undefined;
}

function record(answer: IncomingMessage, exchange: Exchange): void {
  const streaming = String(answer.headers['content-type'] ?? '').includes('text/event-stream');
  const failed = exchange.status < 200 || exchange.status >= 300;
  if (!streaming && !failed) return;
  let text = '';
  answer.on('data', (chunk: Buffer) => {
    if (text.length < 4_000_000) text += chunk.toString('utf8');
  });
  answer.on('end', () => {
    if (failed) exchange.errorBody = text.slice(0, 2_000);
    if (streaming) exchange.malformedEvent = malformedData(text);
  });
}

export async function startRecorder(target: string): Promise<Recorder> {
  const exchanges: Exchange[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const exchange: Exchange = { method: req.method ?? 'GET', path: req.url ?? '/', status: 0 };
    exchanges.push(exchange);
    req.on('data', (chunk: Buffer) => {
      if ((exchange.requestBody ?? '').length < 1_000_000) exchange.requestBody = (exchange.requestBody ?? '') + chunk.toString('utf8');
    });
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        exchange.status = answer.statusCode ?? 0;
        const warnings = answer.headers['x-gateway-warnings'];
        if (warnings !== undefined) exchange.warnings = String(warnings);
        record(answer, exchange);
        res.writeHead(exchange.status, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => {
      exchange.errorBody = `gateway unreachable: ${error.message}`;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  // A WebSocket (Codex's Responses transport): the upgrade and its frames go through as raw bytes;
  // the exchange records the status the gateway answered the upgrade with (101 when it switched).
  server.on('upgrade', (req, socket, head) => {
    const exchange: Exchange = { method: req.method ?? 'GET', path: req.url ?? '/', status: 0 };
    exchanges.push(exchange);
    const gateway = connect(Number(upstream.port), upstream.hostname, () => {
      const headers = Object.entries({ ...req.headers, host: upstream.host })
        .map(([name, value]) => `${name}: ${String(value)}\r\n`)
        .join('');
      gateway.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers}\r\n`);
      gateway.write(head);
      gateway.once('data', (first: Buffer) => {
        exchange.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1'))?.[1] ?? 0);
        if (exchange.status !== 101) exchange.errorBody = first.toString('utf8').slice(0, 2_000);
        socket.write(first);
        gateway.pipe(socket);
      });
      socket.pipe(gateway);
    });
    const end = () => {
      gateway.destroy();
      socket.destroy();
    };
    gateway.on('error', end);
    socket.on('error', end);
    socket.on('close', end);
    gateway.on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    firstProblem() {
      for (const exchange of exchanges) {
        const switched = exchange.status === 101;
        if (!switched && (exchange.status < 200 || exchange.status >= 300))
          return `${exchange.method} ${exchange.path} → ${exchange.status} ${exchange.errorBody ?? ''}`.trim();
        if (exchange.malformedEvent !== undefined)
          return `${exchange.method} ${exchange.path} → malformed event: ${exchange.malformedEvent}`;
      }
      return undefined;
    },
    requestList() {
      return exchanges.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`).join(', ');
    },
    warnings() {
      return exchanges
        .filter((exchange) => exchange.warnings !== undefined)
        .map((exchange) => `${exchange.method} ${exchange.path}: ${exchange.warnings}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
