/**
 * The CPU of every process of the stack (issue 24): the API and the billing worker the bench started,
 * Redis (its pid from its own INFO) and the PostgreSQL backends serving the bench's database (their
 * pids from pg_stat_activity), from /proc. Redis and PostgreSQL are shared with whatever else runs on
 * the machine: their figure is what they burned during the run, ours and anyone else's.
 * PostgreSQL's shared processes (WAL writer, checkpointer) are not counted, nor a backend that exited
 * during the run.
 */
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { createRedis } from '../../src/redis/connection';
import { cpuMicros } from './processes';

export interface StackCpu {
  api: number;
  worker: number;
  redis?: number;
  postgres: number;
}

export interface StackCpuMeter {
  /** CPU µs of each process so far, keyed by pid (PostgreSQL) or name. */
  snapshot(): Promise<StackSnapshot>;
  close(): Promise<void>;
}

export interface StackSnapshot {
  api: number;
  worker: number;
  redis?: number;
  postgres: Map<number, number>;
}

function readable(pid: number): boolean {
  return existsSync(`/proc/${pid}/stat`);
}

function cpuOrZero(pid: number): number {
  try {
    return cpuMicros(pid);
  } catch {
    return 0; // exited between the listing and the read
  }
}

export async function openStackCpu(options: {
  redisUrl: string;
  adminUrl: string;
  databaseName: string;
  apiPid: number;
  workerPid: number;
}): Promise<StackCpuMeter> {
  const redis = createRedis(options.redisUrl, { name: 'bench-stack-cpu' });
  const info = await redis.info('server');
  redis.disconnect();
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? 0);
  const redisVisible = redisPid > 0 && readable(redisPid);
  const admin = new Client({ connectionString: options.adminUrl });
  await admin.connect();
  return {
    async snapshot() {
      const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [options.databaseName]);
      const postgres = new Map<number, number>();
      for (const { pid } of rows) if (readable(pid)) postgres.set(pid, cpuOrZero(pid));
      return {
        api: cpuMicros(options.apiPid),
        worker: cpuMicros(options.workerPid),
        redis: redisVisible ? cpuMicros(redisPid) : undefined,
        postgres,
      };
    },
    async close() {
      await admin.end();
    },
  };
}

/** What each process burned between two snapshots. */
export function stackDelta(before: StackSnapshot, after: StackSnapshot): StackCpu {
  let postgres = 0;
  for (const [pid, micros] of after.postgres) postgres += micros - (before.postgres.get(pid) ?? 0);
  return {
    api: after.api - before.api,
    worker: after.worker - before.worker,
    redis: after.redis !== undefined && before.redis !== undefined ? after.redis - before.redis : undefined,
    postgres,
  };
}
