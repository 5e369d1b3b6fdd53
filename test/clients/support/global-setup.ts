/** Starts the stack once for all client test files and publishes its URL, key and model list. */
import { startStack, type Stack } from './stack';
import { parseModelList, SUITE_ENV } from './suite';

export default async function globalSetup(): Promise<void> {
  const stack: Stack = await startStack();
  (globalThis as { clientSuiteStack?: Stack }).clientSuiteStack = stack;
  const response = await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${stack.key}` } });
  if (!response.ok) throw new Error(`GET /v1/models answered ${response.status}: ${await response.text()}`);
  const models = parseModelList(await response.json());
  process.env[SUITE_ENV] = JSON.stringify({
    url: stack.url,
    key: stack.key,
    models,
    simulatorUrl: stack.simulatorUrl,
    adminEnv: stack.adminEnv,
  });
}
