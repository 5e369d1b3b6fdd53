/**
 * Issue 22, item 1: "a process killed after answering loses no record". A real API process is
 * SIGKILLed the instant each kind of answer has fully arrived at the client (the kill is sent from
 * the client's `end` handler): a non-streamed success, a streamed success, a gateway refusal and an
 * upstream error. No request-log worker runs meanwhile, so each record had to be in Redis before the
 * client got the answer's last byte; a worker started afterwards writes every one to PostgreSQL.
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { startSimulator, type Simulator } from '../../../scripts/provider-sim/server';
import { bootstrap } from '../../../src/process/bootstrap';
import { addUpstreamAccount, createGroup } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { startRequestLogWorker } from '../../../workers/request-log-worker';
import { startApiChild } from '../../support/api-child';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { eventually } from '../billing/billing-fixtures';

jest.setTimeout(180_000);

interface Answer {
  status: number;
  requestId: string;
  body: string;
}

/** One call; the API process is SIGKILLed synchronously when the answer's last byte has arrived. */
function callThenKill(api: { child: ChildProcess; url: URL }, key: string, body: object): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: api.url.hostname,
        port: api.url.port,
        method: 'POST',
        path: '/v1/chat/completions',
        agent: false,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
      },
      (res) => {
        let received = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          received += chunk;
        });
        res.on('end', () => {
          api.child.kill('SIGKILL');
          resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id'] ?? ''), body: received });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

describe('an API process SIGKILLed right after answering', () => {
  let deps: TestDependencies;
  let sim: Simulator;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    deps = await createTestDependencies();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sim.close();
    await deps.close();
  });

  it('loses no record: success (whole and streamed), refusal and upstream error are all written afterwards', async () => {
    const boot = await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' });
    const failingGroup = await createGroup(deps.db, { name: 'failing', family: null });
    await addUpstreamAccount(deps.db, deps.crypto, {
      groupId: failingGroup,
      name: 'failing',
      protocol: 'chat',
      baseUrl: `${sim.url}/_fault/500`,
      apiKey: 'sim-key',
      models: ['gpt-4.1'],
    });
    const failingKey = (await insertApiKey(deps.db, deps.crypto, { accountId: boot.accountId!, groupId: failingGroup, name: 'failing' }))
      .secret;
    const chat = { model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: 'hello' }] };
    const cases = [
      { name: 'success', key: boot.key!, body: chat, expected: { status: 200, outcome: 'ok', error_class: null, stream: false } },
      {
        name: 'streamed success',
        key: boot.key!,
        body: { ...chat, stream: true },
        expected: { status: 200, outcome: 'ok', error_class: null, stream: true },
      },
      {
        name: 'refusal',
        key: boot.key!,
        body: { ...chat, model: 'no-such-model' },
        expected: { status: 400, outcome: 'error', error_class: 'unsupported_model' },
      },
      { name: 'upstream error', key: failingKey, body: chat, expected: { status: 502, outcome: 'error', error_class: 'upstream_error' } },
    ];

    const answers: Array<{ name: string; answer: Answer; expected: object }> = [];
    for (const { name, key, body, expected } of cases) {
      const started = await startApiChild(deps.env);
      const api = { child: started.child, url: new URL(started.url) };
      children.push(api.child);
      const answer = await callThenKill(api, key, body);
      await exited(api.child);
      expect({ name, status: answer.status }).toEqual({ name, status: expected.status });
      expect(answer.requestId).not.toBe('');
      answers.push({ name, answer, expected });
    }
    // No worker ran yet: whatever PostgreSQL gets now came through Redis, put there before each answer ended.
    expect((await deps.db.query('SELECT 1 FROM request_records')).rowCount).toBe(0);

    const worker = await startRequestLogWorker(deps, { blockMs: 100, lingerMs: 0 });
    try {
      const ids = answers.map(({ answer }) => answer.requestId);
      const found = async () =>
        (
          await deps.db.query<{ request_id: string; status: number; outcome: string; error_class: string | null; stream: boolean }>(
            'SELECT request_id, status, outcome, error_class, stream FROM request_records WHERE request_id = ANY($1)',
            [ids],
          )
        ).rows;
      // Waits for all of them; on a timeout the comparison below names the missing ones.
      const rows = await eventually('every record', found, (rows) => rows.length === ids.length, 20_000).catch(found);
      const byId = new Map(rows.map((row) => [row.request_id, row]));
      expect(answers.map(({ name, answer }) => ({ name, record: byId.get(answer.requestId) }))).toEqual(
        answers.map(({ name, answer, expected }) => ({
          name,
          record: expect.objectContaining({ request_id: answer.requestId, ...expected }),
        })),
      );
    } finally {
      await worker.close();
    }
  });
});
