/**
 * Bench scenario (issue 17): prompt-cache affinity. A group of 4 upstream accounts of one Messages
 * model (separate credentials, so separate prompt caches in the simulator, as at a provider) and 50
 * concurrent 4-turn conversations, run through an API process with affinity on (the default) and
 * through another with `SESSION_AFFINITY_TTL_SECONDS=0` (off): the share of what turns
 * 2+ repeat that is billed as cache reads, side by side. Prints its figures and writes
 * bench-results/session-affinity.json; called by `npm run bench` (part `affinity`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { createPool } from '../../src/db/pool';
import { addUpstreamAccount, createAccount, createGroup, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { runConversations, type ConversationFigures } from './affinity-conversations';
import { ROOT, startProcess, stopProcess, waitFor } from './processes';

const MODEL = 'claude-sonnet-4-5';

export interface AffinityBenchmarkOptions {
  /** The environment the benchmark's API runs with (database, Redis prefix, secrets). */
  env: NodeJS.ProcessEnv;
  apiUrl: string;
  simUrl: string;
}

async function affinityKey(env: NodeJS.ProcessEnv, simUrl: string): Promise<string> {
  const db = createPool(env.DATABASE_URL!, 2);
  try {
    const crypto = createSecretCrypto(Buffer.from(env.ENCRYPTION_KEY!, 'hex'), env.HMAC_SECRET!);
    const groupId = await createGroup(db, { name: 'bench-affinity', family: null });
    for (const name of ['a', 'b', 'c', 'd']) {
      await addUpstreamAccount(db, crypto, {
        groupId,
        name: `bench-affinity-${name}`,
        protocol: 'messages',
        baseUrl: simUrl,
        apiKey: `sim-key.${name}`,
        models: [MODEL],
      });
    }
    const accountId = await createAccount(db, { name: 'bench-affinity', tier: 'enterprise', concurrencyCap: 1000 });
    await topUp(db, accountId, 1_000_000_000_000, 'bench-affinity');
    return (await insertApiKey(db, crypto, { accountId, groupId, name: 'bench-affinity' })).secret;
  } finally {
    await db.end();
  }
}

export async function runAffinityBenchmark(
  options: AffinityBenchmarkOptions,
): Promise<Array<{ scenario: string; target: string } & ConversationFigures>> {
  const key = await affinityKey(options.env, options.simUrl);
  const run = (baseUrl: string, tag: string) =>
    runConversations({ baseUrl, key, model: MODEL, conversations: 50, turns: 4, tag, withUserId: 25 });
  const tag = randomBytes(3).toString('hex');
  // Each side on an API process started after the group exists: the benchmark's own API loaded its
  // upstream directory before this group was created and would refuse it until its next refresh.
  const side = async (offset: number, ttlSeconds: string, label: string): Promise<ConversationFigures> => {
    // Ports after the benchmark API's: inside the range the benchmark already uses.
    const port = Number(new URL(options.apiUrl).port) + offset;
    const api = startProcess('src/server.ts', { ...options.env, PORT: String(port), SESSION_AFFINITY_TTL_SECONDS: ttlSeconds });
    try {
      await waitFor(`http://127.0.0.1:${port}/readyz`);
      return await run(`http://127.0.0.1:${port}`, `${label}-${tag}`);
    } finally {
      await stopProcess(api);
    }
  };
  const on = await side(3, options.env.SESSION_AFFINITY_TTL_SECONDS ?? '300', 'on');
  const off = await side(4, '0', 'off');
  const rows = [
    { scenario: 'prompt-cache affinity, 4 accounts, 50 conversations × 4 turns', target: 'affinity on', ...on },
    { scenario: 'prompt-cache affinity, 4 accounts, 50 conversations × 4 turns', target: 'affinity off', ...off },
  ];
  for (const row of rows) {
    console.log(
      `${row.scenario}, ${row.target}: ${(row.cachedShare * 100).toFixed(1)} % of the repeated input billed as cache reads (${row.cacheReadTokens} of ${row.cacheableTokens} tokens), ${row.errors} errors`,
    );
  }
  const resultsDir = path.join(ROOT, 'bench-results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'session-affinity.json'), JSON.stringify({ date: new Date().toISOString(), rows }, null, 2));
  return rows;
}
