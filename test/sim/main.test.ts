/** `npm run sim` (scripts/provider-sim/main.ts) reads its environment and serves. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
let child: ChildProcess | null = null;

afterEach(() => {
  if (child !== null && child.exitCode === null && child.pid !== undefined) child.kill('SIGTERM');
  child = null;
});

/** Starts the CLI and resolves with the URL it prints once listening. */
function startCli(env: Record<string, string>): Promise<string> {
  child = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'scripts/provider-sim/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve(match[1]!);
    });
    child!.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child!.once('exit', (code) => reject(new Error(`simulator exited with ${String(code)}: ${output}`)));
  });
}

it('listens on SIM_PORT and accepts SIM_API_KEY', async () => {
  const url = await startCli({ SIM_PORT: '0', SIM_API_KEY: 'cli-key', SIM_VIDEO_MS: '0' });
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const ok = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer cli-key' },
    body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(ok.status).toBe(200);
  const wrong = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(wrong.status).toBe(401);
});

it('refuses a malformed numeric setting', async () => {
  await expect(startCli({ SIM_PORT: '0', SIM_TTFT_MS: 'soon' })).rejects.toThrow(/SIM_TTFT_MS must be a non-negative number/);
});
