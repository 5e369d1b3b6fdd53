/**
 * Raw HTTP for the fuzz and defect tests: any method, path, header and body bytes (fetch refuses
 * malformed ones), the answer's status, headers and body parsed as JSON when it is JSON.
 */
import { request } from 'node:http';
import net from 'node:net';

export interface ProbeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function probe(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<ProbeAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'POST',
        path: options.path,
        headers: {
          ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}),
          ...options.headers,
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Sends raw bytes (a malformed request head) and returns the raw answer text. */
export function rawExchange(baseUrl: string, bytes: string | Buffer): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(error),
    );
  });
}

/** A raw answer split into status and parsed JSON body. */
export function parseRawAnswer(raw: string): { status: number; contentType?: string; json: unknown } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head ?? '')?.[1] ?? 0);
  const contentType = /\r\ncontent-type: *([^\r\n]+)/i.exec(head ?? '')?.[1];
  return { status, contentType, json: parseJson(Buffer.from(rest.join('\r\n\r\n'), 'latin1').toString('utf8')) };
}
