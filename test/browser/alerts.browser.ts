/**
 * The Alerts page in a real browser (issue 22): a member adds a wallet rule and a webhook (its secret
 * shown once), presses "Send test" and sees the signed delivery arrive at a local receiver and in the
 * delivery log; once the wallet drops the rule shows as firing and its alert is in the log too.
 */
import type { Page } from 'playwright-core';
import { verifyWebhookSignature } from '../../src/alerts/webhook-signature';
import { startWebhookWorker } from '../../workers/webhook-worker';
import { startWebhookReceiver, type WebhookReceiver } from '../integration/alerts/webhook-receiver';
import { eventually, MEMBER, startConsoleWorld, type ConsoleWorld } from './console-harness';

let world: ConsoleWorld;
let page: Page;
let receiver: WebhookReceiver;
let worker: Awaited<ReturnType<typeof startWebhookWorker>>;

beforeAll(async () => {
  world = await startConsoleWorld();
  receiver = await startWebhookReceiver();
  // The webhooks queue in process; evaluation is run by the test, at the moments it chooses.
  worker = await startWebhookWorker(world.gateway.deps, { evaluateEveryMs: 0 });
  ({ page } = await world.newPage());
}, 120_000);

afterEach(() => {
  expect(world.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await world?.close();
});

it('Alerts: adds a rule and a webhook, sends a signed test, and shows a fired alert and its deliveries', async () => {
  await world.login(page, MEMBER);
  await world.go(page, '/alerts', 'Alerts');
  await page.getByText('No alert rules yet').waitFor();

  const ruleForm = page.getByRole('form', { name: 'Add alert rule' });
  await ruleForm.getByLabel('Watch').selectOption('wallet_below');
  await ruleForm.getByLabel('Amount (USD)').fill('50');
  await ruleForm.getByRole('button', { name: 'Add rule' }).click();
  const rules = page.getByRole('table', { name: 'Alert rules' });
  await rules.getByText('Wallet below $50.00').waitFor();
  await expect(rules.getByText('ok', { exact: true }).count()).resolves.toBe(1);

  const hookForm = page.getByRole('form', { name: 'Add webhook' });
  await hookForm.getByLabel('Webhook URL').fill(receiver.url);
  await hookForm.getByRole('button', { name: 'Add webhook' }).click();
  const secretBox = page.getByTestId('secret-value');
  await secretBox.waitFor();
  const secret = (await secretBox.textContent())!.trim();
  await page.getByRole('table', { name: 'Webhooks' }).getByText(receiver.url).waitFor();

  await page.getByRole('button', { name: /^Send a test to webhook/ }).click();
  const [test] = await receiver.waitFor(1);
  expect(JSON.parse(test!.body)).toMatchObject({ type: 'webhook.test' });
  expect(verifyWebhookSignature(secret, String(test!.headers['webhook-signature']), test!.body)).toBe(true);
  const log = page.getByRole('table', { name: 'Webhook deliveries' });
  await eventually(
    async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await log.getByText('delivered').count()) === 1 ? true : undefined;
    },
    20_000,
    'the test delivery in the log',
  );
  await world.shot(page, 'alerts-01-test-delivered');

  await world.gateway.deps.db.query('UPDATE accounts SET balance_credits = 20000000 WHERE id = $1', [world.gateway.accountId]);
  expect((await worker.evaluate()).fired).toHaveLength(1);
  await receiver.waitFor(2);
  await world.go(page, '/overview', 'Overview');
  await world.go(page, '/alerts', 'Alerts');
  await rules.getByText('firing').waitFor();
  await rules.getByText('$20.00').waitFor();
  await eventually(
    async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await log.getByText('alert.wallet_below').count()) === 1 && (await log.getByText('delivered').count()) === 2
        ? true
        : undefined;
    },
    20_000,
    'the alert delivery in the log',
  );
  await world.shot(page, 'alerts-02-fired');
});
