/** Load generation over undici pools: closed loop at N connections, paced at a fixed rate, TTFB. */
import { Pool } from 'undici';

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarize(latencies: number[], errors: number, seconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: Math.round(latencies.length / seconds),
    p50Ms: Number(percentile(latencies, 50).toFixed(2)),
    p99Ms: Number(percentile(latencies, 99).toFixed(2)),
  };
}

async function once(pool: Pool, request: LoadRequest): Promise<{ ms: number; ok: boolean }> {
  const started = process.hrtime.bigint();
  try {
    const response = await pool.request({ path: request.path, method: 'POST', headers: request.headers, body: request.body });
    for await (const _chunk of response.body) {
      /* drain */
    }
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, ok: response.statusCode === 200 };
  } catch {
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, ok: false };
  }
}

export async function closedLoop(origin: string, request: LoadRequest, connections: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let errors = 0;
  const started = Date.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        const result = await once(pool, request);
        if (result.ok) latencies.push(result.ms);
        else errors++;
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  await pool.close();
  return summarize(latencies, errors, elapsed);
}

export async function paced(origin: string, request: LoadRequest, ratePerSecond: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let errors = 0;
  const total = ratePerSecond * seconds;
  const interval = 1000 / ratePerSecond;
  const started = performance.now();
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      once(pool, request).then((r) => {
        if (r.ok) latencies.push(r.ms);
        else errors++;
      }),
    );
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return summarize(latencies, errors, elapsed);
}

/** Time to the first body byte of a stream, one connection, `count` sequential requests. */
export async function timeToFirstByte(origin: string, request: LoadRequest, count: number): Promise<{ p50Ms: number; p99Ms: number }> {
  const pool = new Pool(origin, { connections: 1, keepAliveTimeout: 30_000 });
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    const response = await pool.request({ path: request.path, method: 'POST', headers: request.headers, body: request.body });
    let first = true;
    for await (const _chunk of response.body) {
      if (first) {
        samples.push(Number(process.hrtime.bigint() - started) / 1e6);
        first = false;
      }
    }
  }
  await pool.close();
  samples.sort((a, b) => a - b);
  return { p50Ms: Number(percentile(samples, 50).toFixed(3)), p99Ms: Number(percentile(samples, 99).toFixed(3)) };
}
