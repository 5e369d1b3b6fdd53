/**
 * `npx tsx scripts/bench/request-log-hooks.ts`: the request log's own CPU per request, apart from the
 * rest of the gateway (request-log-cpu.ts measures the whole API process, whose noise on a shared
 * machine is larger than the effect). One process, two HTTP servers: each answers like an
 * authenticated whole answer (the caller and its charge noted, a JSON answer), one observed with
 * the request log on (kept bodies on for the 4 KB requests), the other without it. Short closed-loop
 * rounds alternate between them; the difference in the process's CPU per request is the log's cost
 * (records built, redacted, appended to Redis, held). Needs Redis (`REDIS_URL`); no worker runs (so
 * neither its confirmations nor the checks of unconfirmed records are counted), the stream is deleted at the end. `REQUEST_LOG_HOOKS_ROUNDS` (default 15), `REQUEST_LOG_HOOKS_SECONDS` (default 2).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool as PgPool } from 'pg';
import { loadConfig } from '../../src/config';
import { systemClock } from '../../src/dependencies';
import { observeRequest } from '../../src/http/access-log';
import { createLogger } from '../../src/http/logger';
import { createMetrics } from '../../src/http/metrics';
import { noteCaller, noteCharge } from '../../src/http/request-context';
import { assignRequestId } from '../../src/http/request-id';
import { createRedis } from '../../src/redis/connection';
import { ALL_USAGE_SHARDS, createRedisKeys } from '../../src/redis/keys';
import { createRequestLog, type RequestLog } from '../../src/requests/create-request-log';
import { closedLoop, type LoadRequest } from './load';

const ROUNDS = Number(process.env.REQUEST_LOG_HOOKS_ROUNDS ?? 15);
const SECONDS = Number(process.env.REQUEST_LOG_HOOKS_SECONDS ?? 2);
const ANSWER = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  model: 'gpt-4.1',
  choices: [{ index: 0, message: { role: 'assistant', content: 'word '.repeat(60) }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 900, completion_tokens: 64 },
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function answer(log: RequestLog | undefined, deps: { logger: ReturnType<typeof createLogger>; metrics: ReturnType<typeof createMetrics> }) {
  return (req: IncomingMessage, res: ServerResponse) => {
    assignRequestId(res);
    observeRequest(deps.logger, deps.metrics, req, res, () => 'bench', log);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const keep = text.length > 1_000;
      const facts = noteCaller(res, { accountId: 1, keyId: 2, keepRequestBodies: keep }, 'chat');
      facts.model = 'gpt-4.1';
      if (keep) facts.requestBody = text;
      noteCharge(res, { promptTokens: 900, completionTokens: 64, credits: 1_234, upstreamAccountId: 3, model: 'gpt-4.1' });
      if (keep) facts.responseBody = ANSWER;
      res.setHeader('content-type', 'application/json');
      res.end(ANSWER);
    });
  };
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): void }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function main(): Promise<void> {
  const env = {
    ...process.env,
    REDIS_PREFIX: `gwhooks${randomBytes(3).toString('hex')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HMAC_SECRET: randomBytes(32).toString('hex'),
  } as Record<string, string>;
  const config = loadConfig(env);
  const logger = createLogger('silent');
  const metrics = createMetrics();
  const redis = createRedis(config.redis);
  const subscriber = createRedis(config.redis, { waits: true });
  const redisKeys = createRedisKeys(config.redisPrefix);
  const db = new PgPool({ connectionString: config.databaseUrl, max: 1 });
  await redis.ping();
  // No worker confirms: the held records are never checked (that would be CPU of a missing worker's making).
  const log = createRequestLog(
    { config, redis, redisKeys, logger, clock: systemClock, subscriber, db, metrics },
    { confirmAfterMs: 3_600_000, sweepIntervalMs: 3_600_000, maxPending: 10_000_000 },
  );
  const off = await listen(answer(undefined, { logger, metrics }));
  const on = await listen(answer(log, { logger, metrics }));
  const request = (text: string): LoadRequest => ({
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: text }] }),
  });
  const small = request('Hello');
  const fourKb = request('lorem ipsum '.repeat(342));
  const measure = async (url: string, load: LoadRequest) => {
    const before = process.cpuUsage();
    const result = await closedLoop(url, load, 8, SECONDS);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / Math.max(1, result.requests);
  };
  for (const url of [off.url, on.url]) await closedLoop(url, fourKb, 8, 1);
  const runs: Record<'offSmall' | 'onSmall' | 'off4k' | 'bodies4k', number[]> = { offSmall: [], onSmall: [], off4k: [], bodies4k: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.offSmall.push(await measure(off.url, small));
    runs.onSmall.push(await measure(on.url, small));
    runs.off4k.push(await measure(off.url, fourKb));
    runs.bodies4k.push(await measure(on.url, fourKb));
  }
  const figure = (pick: (values: number[]) => number) => {
    const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.round(pick(v) * 10) / 10])) as Record<
      keyof typeof runs,
      number
    >;
    return {
      ...m,
      logCostMicros: Math.round((m.onSmall - m.offSmall) * 10) / 10,
      bodiesLogCostMicros: Math.round((m.bodies4k - m.off4k) * 10) / 10,
    };
  };
  console.log(JSON.stringify({ processCpuMicrosPerRequest: { median: figure(median), minimum: figure((values) => Math.min(...values)) } }));
  off.close();
  on.close();
  await log.close();
  await redis.del(ALL_USAGE_SHARDS.map((shard) => redisKeys.requestLogStream(shard)));
  redis.disconnect();
  subscriber.disconnect();
  await db.end();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('request log hooks benchmark failed:', error);
    process.exit(1);
  },
);
