/**
 * `npm run bootstrap` (in the image: `node dist/scripts/bootstrap.js`, the compose stack's one-shot
 * `bootstrap` service): prepares an empty database from environment values, then exits. Applies the
 * migrations, seeds the catalog, and on an empty database creates group `default` (and one per model
 * family), an account with its first key (BOOTSTRAP_API_KEY, or a generated one printed once) and,
 * when SIM_BASE_URL is set, the provider simulator as upstream account. Creates the operator login
 * BOOTSTRAP_OPERATOR_EMAIL / BOOTSTRAP_OPERATOR_PASSWORD unless it exists; in production an empty
 * database without that password is refused (exit 1, one line). Running it again changes nothing.
 */
import { createSecretCrypto } from '../src/auth/secret-crypto';
import { Catalog } from '../src/catalog/catalog';
import { loadCatalogModels, seedCatalogIfEmpty } from '../src/catalog/catalog-store';
import { DEFAULT_CATALOG } from '../src/catalog/default-catalog';
import { ConfigError, loadConfig, type Config } from '../src/config';
import { findFirstAccountId } from '../src/db/repositories/accounts';
import { findBootstrapKey } from '../src/db/repositories/api-keys';
import { findConsoleUserByEmail, updateConsoleUserRole } from '../src/db/repositories/console-users';
import { ensureDatabase, migrate } from '../src/db/migrate';
import { createPool } from '../src/db/pool';
import { bootstrap } from '../src/process/bootstrap';
import { redactUrl } from '../src/process/build-dependencies';
import { createConsoleUser } from '../src/process/seed';

async function main(): Promise<void> {
  const config = loadConfig();
  try {
    await ensureDatabase(config.databaseUrl);
    await migrate(config.databaseUrl);
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${redactUrl(config.databaseUrl)} (${(error as Error).message})`);
  }
  const db = createPool(config.databaseUrl, 2);
  try {
    await refuseEmptyWithoutOperator(db, config);
    await seedCatalogIfEmpty(db, DEFAULT_CATALOG);
    const crypto = createSecretCrypto(config.encryptionKey, config.hmacSecret);
    const catalog = new Catalog(await loadCatalogModels(db));
    const boot = await bootstrap(db, crypto, catalog, {
      simulatorUrl: config.sim.baseUrl,
      simulatorKey: config.sim.apiKey,
      apiKey: config.bootstrapApiKey,
    });
    if (boot.created) {
      console.log(`bootstrap: account ${boot.accountId} and key ${boot.keyId} in group default created`);
      if (!config.bootstrapApiKey) console.log(`bootstrap: first API key (shown once): ${boot.key}`);
      console.log(
        config.sim.baseUrl
          ? `bootstrap: upstream accounts point at the provider simulator (${config.sim.baseUrl}); connect a provider with: admin upstream add --provider …`
          : 'bootstrap: no upstream accounts yet; connect a provider with: admin upstream add --provider …',
      );
    } else {
      console.log('bootstrap: the database already has accounts; nothing created');
    }
    console.log(await ensureOperator(db, config.bootstrapOperator));
  } finally {
    await db.end();
  }
}

/**
 * In production the first operator login is made here or nowhere, and compose starts the API and the
 * worker only once this succeeds: an empty database without BOOTSTRAP_OPERATOR_PASSWORD stops the
 * stack in one line, before anything is created. (The quick start makes its own login; a database
 * that already has accounts is left as it is.)
 */
async function refuseEmptyWithoutOperator(db: ReturnType<typeof createPool>, config: Config): Promise<void> {
  if (config.env !== 'production' || config.bootstrapOperator.password) return;
  if ((await findFirstAccountId(db)) !== undefined) return;
  throw new ConfigError([
    'BOOTSTRAP_OPERATOR_PASSWORD: required in production on an empty database (the first operator console login, at least 12 characters; see .env.example); nothing created',
  ]);
}

async function ensureOperator(db: ReturnType<typeof createPool>, operator: { email: string; password?: string }): Promise<string> {
  const email = operator.email.toLowerCase();
  if (await findConsoleUserByEmail(db, email)) return `bootstrap: operator login ${email} exists`;
  if (!operator.password) return 'bootstrap: no operator login (set BOOTSTRAP_OPERATOR_PASSWORD, or: admin user create --role operator)';
  const accountId = (await findBootstrapKey(db))?.accountId ?? (await findFirstAccountId(db));
  if (accountId === undefined) return 'bootstrap: no account to attach the operator login to';
  const userId = await createConsoleUser(db, { accountId, email, password: operator.password });
  await updateConsoleUserRole(db, userId, 'operator');
  return `bootstrap: operator login ${email} created (password from BOOTSTRAP_OPERATOR_PASSWORD)`;
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `bootstrap: ${error.message}` : `bootstrap failed: ${error.message}`);
  process.exit(1);
});
