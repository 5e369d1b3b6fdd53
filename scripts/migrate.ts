/** `npm run migrate`: creates the database if needed and applies pending migrations. */
import { loadConfig } from '../src/config';
import { ensureDatabase, migrate } from '../src/db/migrate';
import { redactUrl } from '../src/process/build-dependencies';

async function main(): Promise<void> {
  const config = loadConfig();
  if (await ensureDatabase(config.databaseUrl)) console.log(`created database ${redactUrl(config.databaseUrl)}`);
  const applied = await migrate(config.databaseUrl);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
}

main().catch((error: Error) => {
  console.error(`migration failed: ${error.message}`);
  process.exit(1);
});
