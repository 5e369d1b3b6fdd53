/**
 * Upstream list freshness across two API processes sharing PostgreSQL and Redis: an account added
 * and announced (as the admin CLI and the operator API do) serves its first request on the other
 * process; one added with no announcement at all still serves (a miss reloads the list and looks
 * again); a disabled, removed or re-enabled account leaves or joins the other process's list within 2 s.
 */
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../../src/process/seed';
import { announceUpstreamsChanged } from '../../../src/upstream/announce-upstreams-changed';
import { startTestGateway, type ApiInstance, type TestGateway } from '../../support/gateway';

jest.setTimeout(60_000);

const CHAT = { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] };

describe('fresh upstream lists on every API process', () => {
  let gateway: TestGateway;
  let second: ApiInstance;
  beforeAll(async () => {
    gateway = await startTestGateway();
    second = await gateway.startSecondInstance();
  });
  afterAll(async () => {
    await second.close();
    await gateway.close();
  });

  async function chat(url: string, key: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(CHAT),
    });
    return { status: response.status, text: await response.text() };
  }

  async function newGroupWithKey(name: string): Promise<{ groupId: number; key: string }> {
    const groupId = await createGroup(gateway.deps.db, { name });
    const key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret;
    return { groupId, key };
  }

  const addAccount = (groupId: number, name: string) =>
    addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId,
      name,
      protocol: 'chat',
      baseUrl: gateway.sim.url,
      apiKey: 'sim-key',
      models: ['gpt-4.1'],
    });

  /** The accounts the process would offer for the group's model, polled until `expected` or 2 s. */
  async function offeredWithin2s(instance: ApiInstance, groupId: number, expected: number[]): Promise<number[]> {
    const deadline = Date.now() + 2_000;
    let ids: number[] = [];
    do {
      ids = (await instance.services.upstreams.candidates(groupId, 'gpt-4.1', ['chat'])).accounts.map((a) => a.id).sort((a, b) => a - b);
      if (JSON.stringify(ids) === JSON.stringify(expected)) return ids;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (Date.now() < deadline);
    return ids;
  }

  it('an account added and announced serves its first request on both processes', async () => {
    const { groupId, key } = await newGroupWithKey('fresh-announced');
    // Both processes hold a list loaded before the account exists.
    expect((await chat(gateway.url, key)).status).toBe(503);
    expect((await chat(second.url, key)).status).toBe(503);
    await addAccount(groupId, 'fresh-announced-0');
    await announceUpstreamsChanged(gateway.deps.redis, gateway.deps.redisKeys);
    expect((await chat(second.url, key)).status).toBe(200);
    expect((await chat(gateway.url, key)).status).toBe(200);
  });

  it('a stale list never refuses: an account added with no announcement serves at once', async () => {
    const { groupId, key } = await newGroupWithKey('fresh-silent');
    expect((await chat(second.url, key)).status).toBe(503);
    await addAccount(groupId, 'fresh-silent-0');
    const reply = await chat(second.url, key);
    expect(reply.text).toContain('chat.completion');
    expect(reply.status).toBe(200);
  });

  it('disabled, re-enabled and removed accounts reach the other process within 2 s', async () => {
    const { groupId, key } = await newGroupWithKey('fresh-changes');
    const first = await addAccount(groupId, 'fresh-changes-0');
    const other = await addAccount(groupId, 'fresh-changes-1');
    await announceUpstreamsChanged(gateway.deps.redis, gateway.deps.redisKeys);
    expect((await chat(second.url, key)).status).toBe(200);
    expect(await offeredWithin2s(second, groupId, [first, other])).toEqual([first, other]);

    await gateway.deps.db.query("UPDATE upstream_accounts SET status = 'disabled' WHERE id = $1", [first]);
    await announceUpstreamsChanged(gateway.deps.redis, gateway.deps.redisKeys);
    expect(await offeredWithin2s(second, groupId, [other])).toEqual([other]);

    await gateway.deps.db.query("UPDATE upstream_accounts SET status = 'active' WHERE id = $1", [first]);
    await announceUpstreamsChanged(gateway.deps.redis, gateway.deps.redisKeys);
    expect(await offeredWithin2s(second, groupId, [first, other])).toEqual([first, other]);

    await gateway.deps.db.query('DELETE FROM upstream_accounts WHERE id = $1', [other]);
    await announceUpstreamsChanged(gateway.deps.redis, gateway.deps.redisKeys);
    expect(await offeredWithin2s(second, groupId, [first])).toEqual([first]);
  });
});
