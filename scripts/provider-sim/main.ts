/**
 * `npm run sim`: the provider simulator on SIM_HOST:SIM_PORT (default 127.0.0.1:4100), accepting
 * SIM_API_KEY (default `sim-key`); latency from SIM_TTFT_MS and SIM_CHUNK_DELAY_MS, video completion
 * time from SIM_VIDEO_MS (default 3000), image latency from SIM_IMAGE_MS (default 0).
 */
import { startSimulator } from './server';

function numberFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative number, got "${value}"`);
  return parsed;
}

async function main(): Promise<void> {
  const simulator = await startSimulator({
    port: numberFromEnv('SIM_PORT', 4100),
    host: process.env.SIM_HOST ?? '127.0.0.1',
    apiKey: process.env.SIM_API_KEY ?? 'sim-key',
    ttftMs: numberFromEnv('SIM_TTFT_MS', 0),
    chunkDelayMs: numberFromEnv('SIM_CHUNK_DELAY_MS', 0),
    videoMs: numberFromEnv('SIM_VIDEO_MS', 3000),
    imageMs: numberFromEnv('SIM_IMAGE_MS', 0),
  });
  process.stdout.write(`provider simulator listening on ${simulator.url}\n`);
  const stop = (): void => {
    void simulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`provider-sim failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
