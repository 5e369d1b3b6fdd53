/**
 * Issue 21 in the console: an operator creates a private routing group and grants it through the
 * Routing page's "Group access" panel; the member's key form then offers the group and edits a
 * key's allowed models (checked as you type); the member's Activity page and the operator's Audit
 * log page show the changes.
 */
import type { Page } from 'playwright-core';
import { eventually, MEMBER, OPERATOR, startConsoleWorld, type ConsoleWorld } from './console-harness';

let world: ConsoleWorld;

beforeAll(async () => {
  world = await startConsoleWorld();
}, 120_000);

afterEach(() => {
  expect(world.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await world?.close();
});

async function loggedIn(user: { email: string; password: string }): Promise<Page> {
  const { page } = await world.newPage();
  await world.login(page, user);
  return page;
}

it('operator: a private group granted from the Group access panel; member: key form with the group and allowed models; both audit pages', async () => {
  const operator = await loggedIn(OPERATOR);
  await world.go(operator, '/operator/upstreams', 'Routing');
  const create = operator.getByRole('form', { name: 'Create routing group' });
  await create.getByLabel('Name').fill('tenant-private');
  await create.getByLabel('Access').selectOption('private');
  await create.getByRole('button', { name: 'Create' }).click();
  await operator.getByRole('status').filter({ hasText: 'created' }).waitFor();
  const access = operator.getByRole('region', { name: 'Group access' });
  await access.getByLabel('Group').selectOption({ label: 'tenant-private (private)' });
  await access.getByLabel('Account id').fill(String(world.gateway.accountId));
  await access.getByRole('button', { name: 'Grant' }).click();
  await access
    .getByRole('table', { name: 'Grants of tenant-private' })
    .getByRole('button', { name: `Revoke account ${world.gateway.accountId}` })
    .waitFor();
  await world.shot(operator, 'tenants-01-group-access');

  const member = await loggedIn(MEMBER);
  await world.go(member, '/keys', 'Keys');
  await member.getByRole('button', { name: 'Create key' }).click();
  const form = member.getByRole('form', { name: 'Create key' });
  await form.getByLabel('Name').fill('limited key');
  await form.getByLabel('Routing group').selectOption({ label: 'tenant-private (every model)' });
  await form.getByLabel('Allowed models').fill('gpt-4.1\nbad*pattern');
  await form.getByRole('alert').filter({ hasText: 'not a model slug or prefix* pattern: bad*pattern' }).waitFor();
  await form.getByLabel('Allowed models').fill('gpt-4.1\nclaude-haiku*');
  await form.getByRole('button', { name: 'Create' }).click();
  const secret = (await member.getByTestId('secret-value').textContent()) ?? '';
  const key = (await (await fetch(`${world.gateway.url}/api/v1/keys`, { headers: { 'x-api-key': secret } })).json()) as {
    data: Array<{ name: string; group_name: string; allowed_models: string[] }>;
  };
  expect(key.data.find((k) => k.name === 'limited key')).toMatchObject({
    group_name: 'tenant-private',
    allowed_models: ['gpt-4.1', 'claude-haiku*'],
  });
  await member.getByRole('button', { name: 'Hide' }).click();

  await world.go(member, '/activity', 'Activity');
  await member.getByTestId('audit-row').filter({ hasText: 'key.create' }).first().waitFor();
  await world.shot(member, 'tenants-02-activity');

  await world.go(operator, '/operator/audit', 'Audit log');
  await operator.getByLabel('Show').selectOption({ label: 'Group grants' });
  await eventually(
    async () => ((await operator.getByTestId('audit-row').filter({ hasText: 'grant.create' }).count()) > 0 ? true : undefined),
    20_000,
    'the grant in the audit log',
  );
  await world.shot(operator, 'tenants-03-audit');
});
