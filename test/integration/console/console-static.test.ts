/**
 * Issue 21 finding 6: the console's static files. A missing file and encoded traversal attempts
 * answer 404 in the gateway envelope, never 500, and leave nothing in the error log.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import express from 'express';
import { createConsoleRouter } from '../../../src/console/console-static';
import { createErrorMiddleware } from '../../../src/http/error-middleware';
import { createLogger } from '../../../src/http/logger';
import { connect } from 'node:net';
import { parseRawAnswer } from '../../fuzz/http-probe';

/** The request line as written (a client library would normalize a traversal away); `Connection: close` ends the exchange. */
function rawGet(url: string, target: string): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

describe('issue 21 finding 6: static console files', () => {
  let directory: string;
  let server: Server;
  let url: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'console-static-'));
    mkdirSync(path.join(directory, 'assets'));
    writeFileSync(path.join(directory, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(path.join(directory, 'assets', 'app-1234.js'), 'console.log(1)');
    writeFileSync(path.join(directory, 'secret.txt'), 'outside the assets folder');
    const app = express();
    app.use(createConsoleRouter(directory));
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      }),
    );
    app.use(createErrorMiddleware(logger, {}));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves an existing asset', async () => {
    const response = await fetch(`${url}/console/assets/app-1234.js`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('console.log(1)');
  });

  it.each([
    '/console/assets/does-not-exist.js',
    '/console/assets/',
    '/console/assets/..%2fsecret.txt',
    '/console/assets/%2e%2e/secret.txt',
    '/console/assets/..%5csecret.txt',
    '/console/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '/console/assets/app-1234.js%00.png',
    '/console/assets/%zz',
  ])('%s answers 404 in the gateway envelope, never a file outside, never a 500', async (target) => {
    const answer = parseRawAnswer(await rawGet(url, target));
    expect([400, 404]).toContain(answer.status);
    expect(answer.json).toMatchObject({ error: { type: expect.any(String), message: expect.any(String) } });
    expect(JSON.stringify(answer.json)).not.toContain('outside the assets folder');
    expect(logLines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });
});
