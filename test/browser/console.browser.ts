/**
 * The web console in a real browser: each page is exercised through its controls and checked
 * against the API's truth (a created key makes a real call that shows in usage and on the chart, a
 * rotated secret dies, the playground streams a billed answer, a task runs to its end, an
 * operator's top-up reaches the member's balance). Screenshots land in test/browser/screenshots/.
 */
import type { Page } from 'playwright-core';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { eventually, MEMBER, OPERATOR, startConsoleWorld, type ConsoleWorld } from './console-harness';

const FULL_SECRET = /sk-svc-[A-Za-z0-9_-]{24,}/g;
const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let world: ConsoleWorld;
let page: Page;
let createdKey = { id: 0, secret: '' };

async function chat(secret: string, model = 'gpt-4.1'): Promise<{ status: number; requestId: string | null; text: string }> {
  const response = await fetch(`${world.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello from the browser suite' }] }),
  });
  const text = await response.text();
  return { status: response.status, requestId: response.headers.get('x-request-id'), text };
}

/** Whole-page HTML (the live DOM) holds no key secret. */
async function expectNoSecret(target: Page): Promise<void> {
  expect((await target.content()).match(FULL_SECRET)).toBeNull();
}

beforeAll(async () => {
  world = await startConsoleWorld();
  ({ page } = await world.newPage());
}, 120_000);

afterEach(() => {
  // A page that throws while rendering is a broken page, whatever the assertions saw.
  expect(world.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await world?.close();
});

describe('the console', () => {
  it('serves index.html uncached and hashed assets cached for a year, with no secret in either', async () => {
    const index = await fetch(`${world.gateway.url}/console`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const asset = /\/console\/assets\/main-[A-Z0-9]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    const script = await fetch(`${world.gateway.url}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    expect(html.match(FULL_SECRET)).toBeNull();
    expect((await fetch(`${world.gateway.url}/console/keys`)).status).toBe(200);
  });

  it('refuses a wrong password and logs in', async () => {
    await page.goto('/console');
    await page.getByLabel('Email').fill(MEMBER.email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid email or password' }).waitFor();
    await world.shot(page, '00-login');
    await world.login(page, MEMBER);
    await expectNoSecret(page);
  });

  it('Keys: checks IP lists as you type, creates a key with every field and shows its secret once', async () => {
    await world.go(page, '/keys', 'Keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('form', { name: 'Create key' });
    await form.getByLabel('Name').fill('browser key');
    await form.getByLabel('Routing group').selectOption({ label: 'default (every model)' });
    await form.getByLabel('IP allow list').fill('10.0.0.0/8\n300.1.1.1');
    await form.getByRole('alert').filter({ hasText: 'not an IPv4/IPv6 address or CIDR block: 300.1.1.1' }).waitFor();
    await form.getByLabel('IP allow list').fill('');
    await form.getByLabel('IP deny list').fill('192.0.2.0/24');
    await form.getByLabel('Lifetime quota (USD)').fill('50');
    await form.getByLabel('5-hour limit (USD)').fill('10');
    await form.getByLabel('1-day limit (USD)').fill('20');
    await form.getByLabel('7-day limit (USD)').fill('40');
    await form.getByLabel('Expires in (days)').fill('30');
    await form.getByRole('button', { name: 'Create' }).click();
    const secret = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(secret).toMatch(/^sk-svc-/);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    const listed = (await (await fetch(`${world.gateway.url}/api/v1/keys`, { headers: { 'x-api-key': secret } })).json()) as {
      data: Array<{
        id: number;
        name: string;
        key: string;
        ip_blacklist: string[];
        rate_limit_7d: number;
        quota: number;
        expires_at: string | null;
      }>;
    };
    const key = listed.data.find((k) => k.name === 'browser key')!;
    expect(key).toMatchObject({ ip_blacklist: ['192.0.2.0/24'], rate_limit_7d: 40, quota: 50 });
    expect(key.expires_at).not.toBeNull();
    createdKey = { id: key.id, secret };
    await world.shot(page, '02-keys-created');
    // Masked in the list; gone from the page once hidden, and after a reload.
    await expect(page.getByTestId(`key-row-${key.id}`).textContent()).resolves.toContain(`...****${secret.slice(-4)}`);
    await page.getByRole('button', { name: 'Hide' }).click();
    await expectNoSecret(page);
    await page.reload();
    await page.getByTestId(`key-row-${key.id}`).waitFor();
    await expectNoSecret(page);
  });

  it('Usage: the created key makes a real call, and the call shows in usage (filtered) and in the CSV export', async () => {
    await world.go(page, '/usage', 'Usage');
    await page.getByLabel('Key').selectOption(String(createdKey.id));
    await page.getByLabel('Protocol').selectOption('chat');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No usage matches these filters.').waitFor();
    // The call is made after the filters were applied: pressing Apply again (same filters) reloads.
    const call = await chat(createdKey.secret);
    expect(call.status).toBe(200);
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Apply' }).click();
        const text = await page.getByRole('table', { name: 'Usage rows' }).textContent();
        return text?.includes(call.requestId!) ? true : undefined;
      },
      30_000,
      'the usage row',
    ).catch((error: Error) => {
      throw new Error(`${error.message}; worker log:\n${world.workerLog()}`);
    });
    const row = page.getByTestId('usage-row').filter({ hasText: call.requestId! });
    await expect(row.textContent()).resolves.toContain('gpt-4.1');
    await world.shot(page, '03-usage');
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await page.context().request.get(href!);
    expect(csv.headers()['content-type']).toContain('text/csv');
    const body = await csv.text();
    expect(body.split('\r\n')[0]).toContain('request_id');
    expect(body).toContain(call.requestId!);
    // The protocol filter really filters.
    await page.getByLabel('Protocol').selectOption('messages');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No usage matches these filters.').waitFor();
  });

  it('Overview: balance, spend, the call on the chart (by model and by key), and window gauges', async () => {
    await world.go(page, '/overview', 'Overview');
    await page.getByTestId('usage-chart').waitFor();
    const chartData = page.getByTestId('usage-chart-data');
    await expect(chartData.textContent()).resolves.toContain('gpt-4.1');
    await page.getByLabel('Split by').selectOption('key');
    await expect(chartData.textContent()).resolves.toContain(`key ${createdKey.id}`);
    await expect(page.getByTestId('balance').textContent()).resolves.toMatch(/^\$\d/);
    await expect(page.getByTestId('spend-today').textContent()).resolves.not.toBe('$0.00');
    const gauges = page.locator('meter');
    expect(await gauges.count()).toBeGreaterThanOrEqual(6);
    await page.getByText('browser key').first().waitFor();
    await world.shot(page, '01-overview');
    await expectNoSecret(page);
  });

  it('Keys: rotate asks for confirmation, kills the old secret at once; reveal shows the new one', async () => {
    await world.go(page, '/keys', 'Keys');
    await page.getByRole('button', { name: 'Rotate browser key' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain('The old secret stops working at once');
    await world.shot(page, '04-keys-rotate-confirm');
    await dialog.getByRole('button', { name: 'Rotate now' }).click();
    const rotated = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(rotated).toMatch(/^sk-svc-/);
    expect(rotated).not.toBe(createdKey.secret);
    expect((await chat(createdKey.secret)).status).toBe(401);
    expect((await chat(rotated)).status).toBe(200);
    await page.getByRole('button', { name: 'Hide' }).click();
    await expectNoSecret(page);
    await page.getByRole('button', { name: 'Reveal browser key' }).click();
    await expect(page.getByTestId('secret-value').textContent()).resolves.toBe(rotated);
    await page.getByRole('button', { name: 'Hide' }).click();
    createdKey.secret = rotated;
  });

  it('Keys: edit, disable, enable and delete', async () => {
    await page.getByRole('button', { name: 'Edit browser key' }).click();
    const form = page.getByRole('form', { name: 'Edit key browser key' });
    await form.getByLabel('Name').fill('browser key 2');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Disable browser key 2' }).click();
    await page.getByTestId(`key-row-${createdKey.id}`).getByText('disabled').waitFor();
    expect([401, 403]).toContain((await chat(createdKey.secret)).status);
    await page.getByRole('button', { name: 'Enable browser key 2' }).click();
    await page.getByTestId(`key-row-${createdKey.id}`).getByText('active', { exact: true }).waitFor();
    // A throwaway key to delete (the first one is used further on).
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = page.getByRole('form', { name: 'Create key' });
    await create.getByLabel('Name').fill('doomed');
    await create.getByLabel('Routing group').selectOption({ label: 'default (every model)' });
    await create.getByRole('button', { name: 'Create' }).click();
    const doomed = (await page.getByTestId('secret-value').textContent()) ?? '';
    await page.getByRole('button', { name: 'Hide' }).click();
    await page.getByRole('button', { name: 'Delete doomed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete now' }).click();
    await page.getByRole('button', { name: 'Delete doomed' }).waitFor({ state: 'detached' });
    expect((await chat(doomed)).status).toBe(401);
    await world.shot(page, '02-keys');
  });

  it('Playground: streams an answer through the real path, with the accounting headers, request id and billed cost', async () => {
    await world.go(page, '/playground', 'Playground');
    await page.getByLabel('Key').selectOption(String(createdKey.id));
    await page.getByLabel('Model').selectOption('claude-sonnet-4-5');
    await page.getByLabel('Protocol').selectOption('messages');
    await page.getByLabel('Prompt').fill('Write two sentences about lighthouses.');
    await page.getByRole('button', { name: 'Send (billed)' }).click();
    await page.getByTestId('pg-done').waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('pg-output').textContent()).resolves.not.toBe('');
    const accounting = page.getByTestId('pg-accounting');
    await expect(accounting.textContent()).resolves.toMatch(/x-request-id.*x-ratelimit-limit/s);
    await page.getByTestId('pg-cost').filter({ hasText: /^\$/ }).waitFor({ timeout: 30_000 });
    await expectNoSecret(page);
    await world.shot(page, '06-playground');
  });

  it('Playground: a tool definition over Chat Completions', async () => {
    await page.getByLabel('Model').selectOption('gpt-4.1');
    await page.getByLabel('Protocol').selectOption('chat');
    await page.getByLabel('Offer a tool').check();
    await page.getByLabel('Prompt').fill('What is the weather in Paris? Use the tool.');
    await page.getByRole('button', { name: 'Send (billed)' }).click();
    await page.getByTestId('pg-done').waitFor({ timeout: 30_000 });
    const toolCall = page.getByTestId('pg-tool-call');
    const answer = `${await page.getByTestId('pg-output').textContent()}${(await toolCall.count()) ? await toolCall.textContent() : ''}`;
    expect(answer.length).toBeGreaterThan(0);
  });

  it('Playground: an image reaches the upstream (Chat Completions in, Messages out)', async () => {
    await page.getByLabel('Offer a tool').uncheck();
    await page.getByLabel('Model').selectOption('claude-sonnet-4-5');
    await page.getByLabel('Protocol').selectOption('chat');
    await page.getByLabel('Prompt').fill('What is in this picture?');
    await page
      .getByLabel('Image (optional)')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(ONE_PIXEL_PNG, 'base64') });
    world.gateway.sim.clearRequests();
    await page.getByRole('button', { name: 'Send (billed)' }).click();
    await page.getByTestId('pg-done').waitFor({ timeout: 30_000 });
    const upstream = world.gateway.sim.requests.find((request) => request.model === 'claude-sonnet-4-5');
    expect(JSON.stringify(upstream?.body)).toContain(ONE_PIXEL_PNG);
  });

  it('Dial test: every stage passes for a key in the default group', async () => {
    await world.go(page, '/dial', 'Dial test');
    await page.getByLabel('Key').selectOption(String(createdKey.id));
    await page.getByLabel('Model').fill('gpt-4.1');
    await page.getByLabel('Protocol').selectOption('chat');
    await page.getByRole('button', { name: 'Dial' }).click();
    await expect(page.getByTestId('dial-verdict').textContent()).resolves.toBe('Lines up: every stage passed');
    for (const stage of ['key', 'model', 'group', 'protocol', 'upstream_account', 'upstream']) {
      await expect(page.getByTestId(`stage-${stage}`).textContent()).resolves.toContain('passed');
    }
    await world.shot(page, '07-dial-test');
  });

  it('Models: capabilities, limits, prices, protocols and snippets with this base URL', async () => {
    await world.go(page, '/models', 'Models');
    const card = page.getByTestId('model-claude-sonnet-4-5');
    await expect(card.textContent()).resolves.toMatch(/200,000 tokens.*\$3 \/ M tokens.*messages, responses, chat/s);
    await card.getByRole('button', { name: 'Show snippets' }).click();
    const snippets = await card.locator('.snippets').textContent();
    expect(snippets).toContain(`${world.gateway.url}/v1/messages`);
    expect(snippets).toContain('anthropic.Anthropic(base_url=');
    expect(snippets).toContain('from openai import OpenAI');
    await world.shot(page, '05-models');
  });

  it('Tasks: submits a video task, follows it live to the end and shows the video', async () => {
    await world.go(page, '/tasks', 'Tasks');
    await page.getByLabel('Key').selectOption(String(createdKey.id));
    await page.getByLabel('Model').selectOption('veo-3');
    await page.getByLabel('Duration (seconds)').fill('4');
    await page.getByRole('button', { name: 'Submit (billed)' }).click();
    await page.getByTestId('task-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await page.getByTestId('task-video').waitFor();
    const events = await page.getByTestId('task-events').textContent();
    expect(events).toContain('succeeded');
    await expectNoSecret(page);
    await world.shot(page, '08-tasks');
  });

  it('Tasks: cancels a running video task', async () => {
    await page.getByLabel('Model').selectOption('veo-3');
    await page.getByRole('button', { name: 'Submit (billed)' }).click();
    await page
      .getByTestId('task-status')
      .filter({ hasText: /queued|running/ })
      .waitFor();
    await page.getByRole('button', { name: 'Cancel task' }).click();
    await page.getByTestId('task-status').filter({ hasText: 'cancelled' }).waitFor();
  });

  it('Tasks: a batch image task shows its images', async () => {
    await page.getByLabel('Model').selectOption('gemini-2.5-flash-image');
    await page.getByLabel('Prompts (one image per line)').fill('a red apple\na green pear');
    await page.getByRole('button', { name: 'Submit (billed)' }).click();
    await page.getByTestId('task-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('task-image').count()).toBe(2);
  });

  it('Billing: top-ups by default, charges on demand, and the balance history chart', async () => {
    await world.go(page, '/billing', 'Billing');
    await page.getByTestId('balance-chart').waitFor();
    const rows = page.getByTestId('transaction-row');
    await rows.first().waitFor();
    const kinds = await rows.locator('td:nth-child(2)').allTextContents();
    expect(kinds).toEqual(['topup']);
    await page.getByLabel('Include per-request charges and task holds').check();
    await rows.filter({ hasText: 'charge' }).first().waitFor();
    await world.shot(page, '09-billing');
  });

  it("Operator: a top-up with a reason reaches the member's balance and ledger; accounts, routing and catalog pages work", async () => {
    const member = (await (
      await fetch(`${world.gateway.url}/api/v1/me/account`, { headers: { 'x-api-key': createdKey.secret } })
    ).json()) as { balance_credits: number };
    const { page: operatorPage, context } = await world.newPage();
    await world.login(operatorPage, OPERATOR);
    await world.go(operatorPage, '/operator/accounts', 'Accounts');
    await operatorPage.getByLabel('Account', { exact: true }).selectOption(String(world.gateway.accountId));
    await operatorPage.getByLabel('Amount (USD)').fill('7.25');
    await operatorPage.getByLabel('Reason (kept in the ledger)').fill('goodwill credit');
    await operatorPage.getByRole('button', { name: 'Record' }).click();
    await operatorPage.getByRole('status').filter({ hasText: 'Recorded.' }).waitFor();
    await world.shot(operatorPage, '10-operator-accounts');

    await world.go(page, '/overview', 'Overview');
    const expected = (member.balance_credits + 7_250_000) / 1_000_000;
    const balance = page.getByTestId('balance').filter({ hasText: /^\$/ });
    const shown = Number((await balance.textContent())!.replace(/[$,]/g, ''));
    // Charges from the billing worker may land between the two reads; never above the top-up.
    expect(shown).toBeGreaterThan(expected - 0.5);
    expect(shown).toBeLessThanOrEqual(expected);
    await world.go(page, '/billing', 'Billing');
    await page.getByTestId('transaction-row').filter({ hasText: 'goodwill credit' }).waitFor();

    await world.go(operatorPage, '/operator/upstreams', 'Routing');
    const firstUpstream = operatorPage.locator('[data-testid^="upstream-row-"]').first();
    await firstUpstream.getByRole('button', { name: /^Test upstream/ }).click();
    await operatorPage
      .getByRole('status')
      .filter({ hasText: /: OK \(.*HTTP 200/ })
      .waitFor();
    await world.go(operatorPage, '/operator/catalog', 'Catalog');
    await operatorPage.getByTestId('catalog-gpt-5').waitFor();
    await context.close();
  });

  it('Operator catalog: a price change and an alias made on the page serve real calls; a retired slug is refused', async () => {
    const { page: operatorPage, context } = await world.newPage();
    await world.login(operatorPage, OPERATOR);
    await world.go(operatorPage, '/operator/catalog', 'Catalog');
    const prices = operatorPage.getByRole('form', { name: 'Change prices' });
    await prices.getByLabel('Model').selectOption('gpt-4.1');
    await prices.getByLabel(/^Input USD per 1M/).fill('3.5');
    await prices.getByRole('button', { name: 'Change prices' }).click();
    await operatorPage.getByRole('status').filter({ hasText: 'Prices of gpt-4.1 changed' }).waitFor();
    await operatorPage.getByTestId('catalog-gpt-4.1').filter({ hasText: '$3.50 /' }).waitFor();

    expect((await chat(createdKey.secret, 'browser-alias')).status).toBe(400);
    const alias = operatorPage.getByRole('form', { name: 'Add alias' });
    await alias.getByLabel('Model').selectOption('gpt-4.1');
    await alias.getByLabel('Alias').fill('browser-alias');
    await alias.getByRole('button', { name: 'Add alias' }).click();
    await operatorPage.getByTestId('catalog-gpt-4.1').filter({ hasText: 'browser-alias' }).waitFor();
    const aliased = await chat(createdKey.secret, 'browser-alias');
    expect(aliased.status).toBe(200);
    await world.shot(operatorPage, '12-operator-catalog');

    await operatorPage.getByRole('button', { name: 'Retire claude-haiku-4-5' }).click();
    await operatorPage.getByRole('dialog').getByRole('button', { name: 'Retire' }).click();
    await operatorPage.getByTestId('catalog-claude-haiku-4-5').filter({ hasText: 'retired' }).waitFor();
    const refused = await chat(createdKey.secret, 'claude-haiku-4-5');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('unsupported_model');
    await operatorPage.getByRole('button', { name: 'Restore claude-haiku-4-5' }).click();
    await operatorPage.getByTestId('catalog-claude-haiku-4-5').filter({ hasText: 'active' }).waitFor();
    await context.close();
  });

  it('Operator routing: an upstream that fails real calls shows as cooling down (shared health, failures over time), and its test reports the failure', async () => {
    const { page: operatorPage, context } = await world.newPage();
    await world.login(operatorPage, OPERATOR);
    await world.go(operatorPage, '/operator/upstreams', 'Routing');
    // The quick start's upstreams are the simulator, and the console says so.
    await operatorPage.getByTestId('simulator-notice').filter({ hasText: 'The upstreams are the provider simulator' }).waitFor();
    // A provider preset: the base URL with its version segment is normalised, and verified before saving.
    const preset = operatorPage.getByRole('form', { name: 'Add upstream account' });
    await preset.getByLabel('Group').selectOption({ label: 'default' });
    await preset.getByLabel('Provider', { exact: true }).selectOption({ label: 'OpenAI' });
    await preset.getByLabel(/^Base URL/).fill(`${world.gateway.sim.url}/v1`);
    await preset.getByLabel('Provider API key').fill('sim-key');
    await preset.getByLabel(/^Models/).fill('gpt-4.1');
    await preset.getByRole('button', { name: 'Add' }).click();
    await operatorPage
      .getByRole('status')
      .filter({ hasText: /^Upstream \d+ added: verified, credential accepted; gpt-4\.1 listed.*removed the version segment \/v1/ })
      .waitFor();
    await preset.getByLabel('Group').selectOption({ label: 'default' });
    await preset.getByLabel(/^Base URL/).fill(world.gateway.sim.url);
    await preset.getByLabel('Provider API key').fill('wrong-key');
    await preset.getByLabel(/^Models/).fill('gpt-4.1');
    await preset.getByRole('button', { name: 'Add' }).click();
    await operatorPage.getByText(/verification failed: the provider refused the credential \(HTTP 401\)/).waitFor();

    const group = operatorPage.getByRole('form', { name: 'Create routing group' });
    await group.getByLabel('Name').fill('failing-group');
    await group.getByRole('button', { name: 'Create' }).click();
    await operatorPage
      .getByRole('status')
      .filter({ hasText: /^Group \d+ created/ })
      .waitFor();
    const add = operatorPage.getByRole('form', { name: 'Add upstream account' });
    await add.getByLabel('Group').selectOption({ label: 'failing-group' });
    await add.getByLabel('Name').fill('always-503');
    await add.getByLabel('Provider', { exact: true }).selectOption({ label: 'Any server of a protocol' });
    await add.getByLabel('Protocol').selectOption('chat');
    // Not verified: the simulator answers every call under this base-URL prefix with 503.
    await add.getByRole('checkbox', { name: /Verify with the provider/ }).uncheck();
    await add.getByLabel('Base URL').fill(`${world.gateway.sim.url}/_fault/503`);
    await add.getByLabel('Provider API key').fill('sim-key');
    await add.getByLabel(/^Models/).fill('gpt-4.1');
    await add.getByRole('button', { name: 'Add' }).click();
    const created = await operatorPage
      .getByRole('status')
      .filter({ hasText: /^Upstream \d+ added/ })
      .textContent();
    const upstreamId = Number(/^Upstream (\d+)/.exec(created!)![1]);
    await operatorPage.getByTestId(`upstream-health-${upstreamId}`).filter({ hasText: 'healthy' }).waitFor();

    const groupId = Number(
      (await world.gateway.deps.db.query<{ id: string }>("SELECT id FROM routing_groups WHERE name = 'failing-group'")).rows[0]!.id,
    );
    const key = await insertApiKey(world.gateway.deps.db, world.gateway.deps.crypto, {
      accountId: world.gateway.accountId,
      groupId,
      name: 'failing',
    });
    expect((await chat(key.secret)).status).toBeGreaterThanOrEqual(500);
    await operatorPage.getByRole('button', { name: 'Refresh health' }).click();
    await operatorPage.getByTestId(`upstream-health-${upstreamId}`).filter({ hasText: 'cooling down until' }).waitFor();
    await expect(operatorPage.getByText('shared by every API process').count()).resolves.toBe(1);
    await operatorPage
      .getByTestId(`upstream-health-${upstreamId}`)
      .filter({ hasText: /1 failure in \d+ min/ })
      .waitFor();
    await operatorPage.getByRole('button', { name: 'Refresh history' }).click();
    await operatorPage.getByTestId('health-history-table').getByText('503: 1').waitFor({ state: 'attached' });

    await operatorPage.getByRole('button', { name: `Test upstream ${upstreamId}` }).click();
    await operatorPage
      .getByRole('status')
      .filter({ hasText: /FAILED \(gpt-4\.1, HTTP 503/ })
      .waitFor();
    await world.shot(operatorPage, '11-operator-routing');
    await context.close();
  });

  it('Operator pages and API are refused to a member', async () => {
    const nav = await page.getByRole('navigation', { name: 'Console pages' }).textContent();
    expect(nav).not.toContain('Accounts');
    const answer = await page.context().request.get('/api/v1/operator/accounts');
    expect(answer.status()).toBe(403);
  });

  it('is usable at phone width: one column, nothing wider than the screen, every control labelled', async () => {
    const { page: phone, context } = await world.newPage({ width: 390, height: 844 });
    await world.login(phone, MEMBER);
    for (const [route, heading] of [
      ['/overview', 'Overview'],
      ['/keys', 'Keys'],
      ['/playground', 'Playground'],
      ['/usage', 'Usage'],
    ] as const) {
      await world.go(phone, route, heading);
      // Evaluated in the page (strings: the test program is typed without the DOM library).
      const overflow = await phone.evaluate<number>('document.body.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(1);
      const unlabelled = await phone.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea')]
        .filter((element) => element.labels.length === 0 && !element.getAttribute('aria-label'))
        .map((element) => element.outerHTML)`);
      expect(unlabelled).toEqual([]);
    }
    await world.go(phone, '/overview', 'Overview');
    await world.shot(phone, '13-phone-overview');
    await context.close();
  });
});
