/**
 * What the suite's global setup learnt (the stack's URL and key, `GET /v1/models`), handed to the
 * test files through one environment variable, and the cell matrix derived from it: for each
 * protocol a client speaks, one representative model of every family whose `protocols` allow it.
 */
import { z } from 'zod';

export const SUITE_ENV = 'CLIENT_SUITE_STACK';

const listedModel = z.object({
  id: z.string(),
  family: z.string(),
  capabilities: z.array(z.string()),
  protocols: z.array(z.string()),
});
export type ListedModel = z.infer<typeof listedModel>;

const suiteState = z.object({
  url: z.string(),
  key: z.string(),
  models: z.array(listedModel),
  /** For cells that add to the stack's data with the operator CLI (support/admin.ts). */
  simulatorUrl: z.string(),
  adminEnv: z.record(z.string(), z.string()),
});
export type SuiteState = z.infer<typeof suiteState>;

export type Protocol = 'messages' | 'responses' | 'chat' | 'generate-content';

/** The models the acceptance list names come first; other families are represented by their first listed model. */
const PREFERRED = ['claude-sonnet-4-5', 'gpt-5', 'gemini-2.5-flash', 'deepseek-v3.2'];

export function parseModelList(body: unknown): ListedModel[] {
  return z.object({ data: z.array(listedModel) }).parse(body).data;
}

export function suite(): SuiteState {
  const raw = process.env[SUITE_ENV];
  if (raw === undefined)
    throw new Error(`${SUITE_ENV} is unset: run the suite with npm run test:clients (its global setup starts the stack)`);
  return suiteState.parse(JSON.parse(raw));
}

/** One model per family among those that allow the protocol. */
export function representatives(protocol: Protocol): ListedModel[] {
  const byFamily = new Map<string, ListedModel>();
  const models = suite().models.filter((model) => model.protocols.includes(protocol));
  for (const model of [...models].sort((a, b) => rank(a) - rank(b))) {
    if (!byFamily.has(model.family)) byFamily.set(model.family, model);
  }
  return [...byFamily.values()];
}

/** Every model of a family that allows the protocol (Gemini CLI runs on each Gemini model). */
export function familyModels(protocol: Protocol, family: string): ListedModel[] {
  return suite().models.filter((model) => model.family === family && model.protocols.includes(protocol));
}

function rank(model: ListedModel): number {
  const index = PREFERRED.indexOf(model.id);
  return index < 0 ? PREFERRED.length : index;
}
