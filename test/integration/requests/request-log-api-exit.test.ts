/**
 * Issue 22, item 1: an API process stopped right after it answered loses no request record: the
 * records it still held (not yet in Redis, or in Redis but not written) are in Redis before it exits,
 * and the request-log worker writes every one. The API runs as its own process (test/chaos/api-process.ts).
 */
import { startSimulator, type Simulator } from '../../../scripts/provider-sim/server';
import { bootstrap } from '../../../src/process/bootstrap';
import { startRequestLogWorker } from '../../../workers/request-log-worker';
import { startApiChild } from '../../support/api-child';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { eventually } from '../billing/billing-fixtures';

jest.setTimeout(120_000);

describe('an API process stopped right after answering', () => {
  let deps: TestDependencies;
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    deps = await createTestDependencies();
  });
  let afterStop = () => undefined as void;
  afterAll(async () => {
    afterStop();
    await sim.close();
    await deps.close();
  });

  it('loses no record: every answered request is written once the worker runs', async () => {
    const boot = await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' });
    const api = await startApiChild(deps.env);
    afterStop = () => {
      if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
    };
    const call = async (index: number) => {
      const response = await fetch(`${api.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${boot.key!}` },
        body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: `hello ${index}` }] }),
      });
      await response.text();
      expect(response.status).toBe(200);
      return response.headers.get('x-request-id')!;
    };
    const ids: string[] = [];
    // Eight at a time: within the account's concurrency cap.
    for (let round = 0; round < 5; round += 1)
      ids.push(...(await Promise.all(Array.from({ length: 8 }, (_, index) => call(round * 8 + index)))));
    // Stopped the moment the last answer arrived: no worker has run, nothing is in PostgreSQL yet.
    api.child.kill('SIGTERM');
    await new Promise<void>((resolve) => api.child.once('exit', () => resolve()));
    expect((await deps.db.query('SELECT 1 FROM request_records')).rowCount).toBe(0);

    const worker = await startRequestLogWorker(deps, { blockMs: 100, lingerMs: 0 });
    try {
      const written = await eventually(
        'every record',
        async () =>
          (await deps.db.query<{ request_id: string }>('SELECT request_id FROM request_records WHERE request_id = ANY($1)', [ids])).rows,
        (rows) => rows.length === ids.length,
      );
      expect(new Set(written.map((row) => row.request_id))).toEqual(new Set(ids));
    } finally {
      await worker.close();
    }
  });
});
