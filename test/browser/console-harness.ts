/**
 * The world of the browser suite: a whole gateway (real PostgreSQL, Redis, embedded S3, the provider
 * simulator, the API in process), a worker process (billing and tasks) as in production, two console
 * users (a member of the demo account and an operator), and chromium driven by Playwright.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createConsoleUser } from '../../src/process/seed';
import { startTestGateway, type TestGateway } from '../support/gateway';

const ROOT = path.resolve(__dirname, '..', '..');
export const SCREENSHOTS = path.join(__dirname, 'screenshots');
export const MEMBER = { email: 'member@example.test', password: 'member-password-1' };
export const OPERATOR = { email: 'operator@example.test', password: 'operator-password-1' };

/** Debian's chromium unless CHROMIUM_PATH names another build. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error('chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH');
  return found;
}

export interface ConsoleWorld {
  gateway: TestGateway;
  browser: Browser;
  worker: ChildProcess;
  /** The worker's last log lines (warnings and errors), for a test's failure message. */
  workerLog(): string;
  /** Uncaught errors of any page (drained by the tests). */
  pageErrors: string[];
  newPage(options?: { width?: number; height?: number }): Promise<{ context: BrowserContext; page: Page }>;
  login(page: Page, user: { email: string; password: string }): Promise<void>;
  go(page: Page, route: string, heading: string): Promise<void>;
  shot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleWorld(): Promise<ConsoleWorld> {
  // Video operations take a few seconds, so the tasks page can be seen following one and cancelling one.
  const gateway = await startTestGateway({ s3: true, simulator: { videoMs: 3_000 } });
  await gateway.deps.storage.ensureBucket();
  const member = await createConsoleUser(gateway.deps.db, { accountId: gateway.accountId, email: MEMBER.email, password: MEMBER.password });
  const operator = await createConsoleUser(gateway.deps.db, {
    accountId: gateway.accountId,
    email: OPERATOR.email,
    password: OPERATOR.password,
  });
  await gateway.deps.db.query("UPDATE console_users SET role = 'operator' WHERE id = $1", [operator]);
  void member;
  // The worker logs its warnings (a usage event it could not settle, say): kept, and shown by a test
  // that times out waiting for what the worker writes.
  const worker = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'workers', 'index.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...gateway.deps.env, LOG_LEVEL: 'warn', WORKER_QUEUES: 'billing,tasks' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const workerLines: string[] = [];
  const keepLines = (chunk: Buffer) => {
    workerLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    workerLines.splice(0, Math.max(0, workerLines.length - 40));
  };
  worker.stdout!.on('data', keepLines);
  worker.stderr!.on('data', keepLines);
  worker.once('exit', (code, signal) => workerLines.push(`worker exited (code ${code}, signal ${signal})`));
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  mkdirSync(SCREENSHOTS, { recursive: true });
  const pageErrors: string[] = [];

  return {
    gateway,
    browser,
    worker,
    workerLog: () => workerLines.join('\n') || '(the worker logged nothing)',
    pageErrors,
    async newPage(options = {}) {
      const context = await browser.newContext({
        baseURL: gateway.url,
        viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
      });
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
      page.setDefaultTimeout(20_000);
      return { context, page };
    },
    async login(page, user) {
      await page.goto('/console');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    },
    async go(page, route, heading) {
      await page.goto(`/console#${route}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    },
    async shot(page, name) {
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await browser.close().catch(() => undefined);
      worker.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        if (worker.exitCode !== null || worker.signalCode !== null) return resolve();
        const timer = setTimeout(() => {
          worker.kill('SIGKILL');
          resolve();
        }, 5_000);
        worker.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      await gateway.close();
    },
  };
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
