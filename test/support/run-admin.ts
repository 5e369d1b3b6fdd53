/** The admin CLI run as an operator runs it: a real process, its exit code, stdout and stderr. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SECRETS_FILE = path.join(mkdtempSync(path.join(os.tmpdir(), 'gw-admin-cli-')), 'secrets.json');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runAdmin(env: Record<string, string>, ...args: string[]): Promise<AdminRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'scripts', 'admin.ts'), ...args],
      // SECRETS_FILE: a run without keys generates development secrets; they go to a temporary folder, never the checkout's .local/.
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRETS_FILE: SECRETS_FILE, ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** One line on stderr, nothing on stdout, and the exit code. */
export function expectOneLine(run: AdminRun, code: number, message: string | RegExp): void {
  expect({ code: run.code, lines: run.stderr.trim().split('\n').length }).toEqual({ code, lines: 1 });
  expect(run.stderr.trim()).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  expect(run.stdout).toBe('');
}
