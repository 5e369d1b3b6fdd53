/**
 * A real load balancer in front of the API processes: Debian's haproxy (installed by `.ci/run`),
 * round robin, health checks on /readyz every 200 ms, and connection failures retried on the other
 * server (a process that stopped accepting is skipped, as in a rolling restart).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './dist-processes';

export interface LoadBalancer {
  url: string;
  close(): Promise<void>;
}

function config(port: number, backends: readonly number[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  timeout check 5s',
    '  retries 10',
    '  option redispatch 1',
    // A connection the stopping server closed before reading the request: nothing ran, safe to send elsewhere.
    '  retry-on conn-failure empty-response',
    // One request per server connection: no idle connection a stopping server could close under a request.
    '  option http-server-close',
    'frontend gateway',
    `  bind 127.0.0.1:${port}`,
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    ...backends.map((backend, i) => `  server api${i + 1} 127.0.0.1:${backend} check inter 200ms fall 2 rise 1`),
    '',
  ].join('\n');
}

export async function startHaproxy(backends: readonly number[]): Promise<LoadBalancer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config(port, backends));
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`haproxy did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
