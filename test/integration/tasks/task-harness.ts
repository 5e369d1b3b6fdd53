/**
 * The world of the task and image integration tests: real PostgreSQL, Redis and S3 (embedded), the
 * provider simulator in process, a group whose upstream accounts serve the media models, two
 * accounts with keys, the API in process, and helpers to spawn workers and a second API as
 * separate processes, read task streams, and look at the ledger and S3.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../scripts/provider-sim/server';
import { addUpstreamAccount, createAccount, createGroup, topUp } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { SseParser, type SseEvent } from '../../../src/protocols/shared/sse-parser';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { startTaskApi, type TaskApi } from './task-api';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export const MEDIA_MODELS = { chat: ['gpt-image-1'], 'generate-content': ['gemini-2.5-flash-image', 'veo-3'] } as const;

export interface ChildHandle {
  child: ChildProcess;
  lines: string[];
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

export interface Caller {
  key: string;
  keyId: number;
  accountId: number;
}

export interface JsonReply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface LedgerRow {
  kind: string;
  amount_credits: number;
  reference: string | null;
}

export interface TaskHarness {
  deps: TestDependencies;
  sim: Simulator;
  api: TaskApi;
  groupId: number;
  owner: Caller;
  stranger: Caller;
  post(url: string, body: unknown, key?: string): Promise<JsonReply>;
  submit(body: unknown, key?: string): Promise<JsonReply>;
  query(taskId: string, key?: string): Promise<JsonReply>;
  waitForStatus(taskId: string, statuses: string[], timeoutMs?: number, key?: string): Promise<Record<string, unknown>>;
  spawnWorker(env?: Record<string, string>): Promise<ChildHandle>;
  spawnApi(env?: Record<string, string>): Promise<ChildHandle & { url: string }>;
  ledger(reference: string): Promise<LedgerRow[]>;
  wallet(accountId?: number): Promise<{ balance: number; held: number }>;
  objectKeys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface StreamRead {
  status: number;
  events: SseEvent[];
  comments: number;
  /** Whether the server closed the stream (it does after a terminal state). */
  ended: boolean;
}

/** Reads an SSE stream until the server ends it, `stopWhen` holds, or `timeoutMs` passes. */
export async function readTaskStream(
  url: string,
  key: string,
  options: { lastEventId?: string; timeoutMs?: number; stopWhen?: (events: SseEvent[]) => boolean } = {},
): Promise<StreamRead> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 20_000);
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'text/event-stream',
      ...(options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {}),
    },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  let comments = 0;
  let ended = false;
  if (!response.body || response.status !== 200) {
    clearTimeout(timer);
    return { status: response.status, events, comments, ended: true };
  }
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        events.push(...parser.end());
        break;
      }
      const text = decoder.decode(value, { stream: true });
      comments += (text.match(/^: keepalive/gm) ?? []).length;
      events.push(...parser.push(text));
      if (options.stopWhen?.(events)) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: response.status, events, comments, ended };
}

function startChild(script: string, env: Record<string, string>, children: Set<ChildHandle>): ChildHandle {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  child.on('exit', () => {
    for (const wake of waiters.splice(0)) wake();
  });
  const handle: ChildHandle = {
    child,
    lines,
    async waitForLine(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const line of lines) {
          const match = pattern.exec(line);
          if (match) return match;
        }
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`${script} did not print ${pattern} in ${timeoutMs} ms: ${stderr}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async stop() {
      children.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  children.add(handle);
  return handle;
}

async function newCaller(deps: TestDependencies, groupId: number, name: string, credits: number): Promise<Caller> {
  const accountId = await createAccount(deps.db, { name, tier: 'pro' });
  await topUp(deps.db, accountId, credits, `topup-${name}`);
  const key = await insertApiKey(deps.db, deps.crypto, { accountId, groupId, name });
  return { key: key.secret, keyId: key.id, accountId };
}

export async function startTaskHarness(
  options: { simulator?: SimulatorOptions; env?: Record<string, string>; heartbeatMs?: number; upstreamPath?: string } = {},
): Promise<TaskHarness> {
  const sim = await startSimulator({ port: 0, videoMs: 1_000, ...options.simulator });
  const deps = await createTestDependencies({ s3: true, env: { UPSTREAM_MAX_ATTEMPTS: '2', ...options.env } });
  const groupId = await createGroup(deps.db, { name: 'default', family: null });
  const baseUrl = `${sim.url}${options.upstreamPath ?? ''}`;
  await addUpstreamAccount(deps.db, deps.crypto, { groupId, protocol: 'chat', baseUrl, apiKey: 'sim-key', models: [...MEDIA_MODELS.chat] });
  await addUpstreamAccount(deps.db, deps.crypto, {
    groupId,
    protocol: 'generate-content',
    baseUrl,
    apiKey: 'sim-key',
    models: [...MEDIA_MODELS['generate-content']],
  });
  const owner = await newCaller(deps, groupId, 'owner', 100_000_000);
  const stranger = await newCaller(deps, groupId, 'stranger', 100_000_000);
  const api = await startTaskApi(deps, { heartbeatMs: options.heartbeatMs });
  const children = new Set<ChildHandle>();
  const s3 = new S3Client({
    endpoint: deps.s3!.endpoint,
    region: deps.config.s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: deps.config.s3.accessKeyId, secretAccessKey: deps.config.s3.secretAccessKey },
  });

  const post = async (url: string, body: unknown, key = owner.key): Promise<JsonReply> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  const query = (taskId: string, key = owner.key) => post(`${api.url}/v1/tasks/query`, { task_id: taskId }, key);

  return {
    deps,
    sim,
    api,
    groupId,
    owner,
    stranger,
    post,
    query,
    submit: (body, key = owner.key) => post(`${api.url}/v1/tasks/submit`, body, key),
    async waitForStatus(taskId, statuses, timeoutMs = 30_000, key = owner.key) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reply = await query(taskId, key);
        if (statuses.includes(String(reply.body.status))) return reply.body;
        if (Date.now() > deadline)
          throw new Error(`task ${taskId} is ${String(reply.body.status)}, not ${statuses.join('|')}, after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async spawnWorker(env = {}) {
      const handle = startChild('worker-entry.ts', { ...deps.env, TASK_TEST_LOCK_MS: '2000', ...env }, children);
      await handle.waitForLine(/^READY$/);
      return handle;
    },
    async spawnApi(env = {}) {
      const handle = startChild('api-entry.ts', { ...deps.env, ...env }, children);
      const match = await handle.waitForLine(/^LISTENING (\S+)$/);
      return { ...handle, url: match[1] };
    },
    async ledger(reference) {
      const result = await deps.db.query<LedgerRow>(
        'SELECT kind, amount_credits, reference FROM ledger_entries WHERE reference = $1 ORDER BY id',
        [reference],
      );
      return result.rows;
    },
    async wallet(accountId = owner.accountId) {
      const result = await deps.db.query<{ balance_credits: number; held_credits: number }>(
        'SELECT balance_credits, held_credits FROM accounts WHERE id = $1',
        [accountId],
      );
      return { balance: result.rows[0].balance_credits, held: result.rows[0].held_credits };
    },
    async objectKeys(prefix) {
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: deps.config.s3.bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
    },
    async close() {
      await Promise.all([...children].map((handle) => handle.stop()));
      await api.close();
      s3.destroy();
      await sim.close();
      await deps.close();
    },
  };
}
