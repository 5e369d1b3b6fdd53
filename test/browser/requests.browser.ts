/**
 * The console's Requests page in a real browser (issue 22): a success and a refusal made through the
 * API show up (the refusal with its class, found by the status filter), the detail view shows the
 * kept, redacted bodies and a curl without the secret; the live tail picks up a new request by
 * itself; the Overview shows error rate and latency per model; the operator sees other accounts.
 */
import type { Page } from 'playwright-core';
import { createAccount, findGroupId, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { eventually, MEMBER, OPERATOR, startConsoleWorld, type ConsoleWorld } from './console-harness';

let world: ConsoleWorld;
let page: Page;

async function chat(secret: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${world.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.headers.get('x-request-id')!;
}

async function recorded(requestId: string): Promise<void> {
  await eventually(
    async () =>
      (await world.gateway.deps.db.query('SELECT 1 FROM request_records WHERE request_id = $1 AND NOT provisional', [requestId])).rowCount
        ? true
        : undefined,
    30_000,
    `record ${requestId}`,
  );
}

beforeAll(async () => {
  world = await startConsoleWorld();
  ({ page } = await world.newPage());
  await world.gateway.deps.db.query('UPDATE accounts SET request_bodies_allowed = true, keep_request_bodies = true WHERE id = $1', [
    world.gateway.accountId,
  ]);
}, 120_000);

afterEach(() => {
  expect(world.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await world?.close();
});

describe('the Requests page', () => {
  it('lists successes and refusals, filters by status, opens a request with its bodies and a curl without the secret; live tail; per-model figures', async () => {
    // A fresh key: its settings (bodies kept) are read on first use.
    const groupId = (await findGroupId(world.gateway.deps.db, 'default'))!;
    const key = await insertApiKey(world.gateway.deps.db, world.gateway.deps.crypto, {
      accountId: world.gateway.accountId,
      groupId,
      name: 'requests page',
    });
    const ok = await chat(key.secret, {
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Hello, my token is Bearer abcdefghijklmnopqrstu' }],
    });
    const refused = await chat(key.secret, { model: 'no-such-model', messages: [{ role: 'user', content: 'Hi' }] });
    await recorded(ok);
    await recorded(refused);

    await world.login(page, MEMBER);
    await page
      .getByRole('table', { name: 'Error rate and latency per model' })
      .getByRole('cell', { name: 'gpt-4.1', exact: true })
      .waitFor();

    await world.go(page, '/requests', 'Requests');
    const table = page.getByRole('table', { name: 'Requests' });
    await table.getByText(ok).waitFor();
    await table.getByText(refused).waitFor();
    await page.getByLabel('Status').fill('error');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => ((await table.getByText(ok).count()) === 0 ? true : undefined), 10_000, 'the success filtered out');
    const refusedRow = page.getByTestId('request-row').filter({ hasText: refused });
    await refusedRow.getByText('unsupported_model').waitFor();
    await refusedRow.getByText('400 error').waitFor();

    await page.getByLabel('Status').fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await table.getByRole('button', { name: ok }).click();
    const detail = page.getByTestId('request-detail');
    await detail.getByText('200 ok').waitFor();
    const requestBody = await detail.getByTestId('request-body').textContent();
    expect(requestBody).toContain('Bearer [redacted]');
    expect(requestBody).not.toContain('abcdefghijklmnopqrstu');
    expect(await detail.getByTestId('response-body').textContent()).toContain('chat.completion');
    const curl = await detail.getByTestId('request-curl').inputValue();
    expect(curl).toContain('/v1/chat/completions');
    expect(curl).toContain('$GATEWAY_API_KEY');
    expect(curl).not.toContain(key.secret);
    await world.shot(page, 'requests-detail');

    await page.getByLabel('Live tail').check();
    const later = await chat(key.secret, { model: 'gpt-4.1', messages: [{ role: 'user', content: 'one more' }] });
    await table.getByText(later).waitFor({ timeout: 30_000 });
  });

  it('the operator sees requests of every account', async () => {
    const other = await createAccount(world.gateway.deps.db, { name: 'elsewhere', tier: 'pro' });
    await topUp(world.gateway.deps.db, other, 1_000_000_000);
    const groupId = (await findGroupId(world.gateway.deps.db, 'default'))!;
    const key = await insertApiKey(world.gateway.deps.db, world.gateway.deps.crypto, { accountId: other, groupId, name: 'elsewhere' });
    const requestId = await chat(key.secret, { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }] });
    await recorded(requestId);
    const { page: operatorPage } = await world.newPage();
    await world.login(operatorPage, OPERATOR);
    await world.go(operatorPage, '/operator/requests', 'All requests');
    await operatorPage.getByRole('table', { name: 'Requests' }).getByText(requestId).waitFor();
    await world.shot(operatorPage, 'requests-operator');
  });
});
