/**
 * Issue 21, audit log append-only for the application's database role, for real: the trigger alone
 * does not hold against the table's owner (it can disable or drop the trigger, or the table). On a
 * database owned by an ordinary login role that ran the migrations, the hardening step (as the
 * superuser) hands the audit log to a NOLOGIN owner; afterwards that role still appends and reads
 * through the gateway's own code and still runs later migrations, and everything that could change
 * or erase history is refused to it. The admin CLI's `db harden-audit` is the same step, idempotent.
 */
import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { recordAudit } from '../../../src/audit/record-audit';
import { hardenAuditLog } from '../../../src/audit/harden-audit-log';
import { migrate } from '../../../src/db/migrate';
import { createPool } from '../../../src/db/pool';
import { listAuditEvents } from '../../../src/db/repositories/audit-events';
import { createAccount } from '../../../src/process/seed';
import { ADMIN_DATABASE_URL } from '../../support/database';
import { expectOneLine, runAdmin } from '../../support/run-admin';

jest.setTimeout(120_000);

const suffix = randomBytes(5).toString('hex');
const appRole = `gw_app_${suffix}`;
const ownerRole = `gw_audit_owner_${suffix}`;
const database = `gw_test_harden_${suffix}`;

function urlFor(user: string, name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.username = user;
  url.password = '';
  url.pathname = `/${name}`;
  return url.toString();
}
const superuser = new URL(ADMIN_DATABASE_URL).username || 'postgres';
const appUrl = urlFor(appRole, database);
const superuserUrl = urlFor(superuser, database);

async function asAdmin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('audit log append-only for the application database role, owner included', () => {
  let app: Pool;
  let superuserPool: Pool;
  let laterMigrations: string[];
  let firstChanges: string[];

  beforeAll(async () => {
    await asAdmin(`CREATE ROLE "${appRole}" LOGIN`);
    await asAdmin(`CREATE DATABASE "${database}" OWNER "${appRole}"`);
    // The gateway's role creates its schema up to the audit log, as a first start would.
    await migrate(appUrl, { through: '012_audit_log.sql' });
    superuserPool = createPool(superuserUrl, 2);
    firstChanges = (await hardenAuditLog(superuserPool, { appRole, ownerRole })).changes;
    // Later migrations (they do not touch the audit log) still run as the gateway's role.
    laterMigrations = await migrate(appUrl);
    app = createPool(appUrl, 2);
  });

  afterAll(async () => {
    await app?.end();
    await superuserPool?.end();
    await asAdmin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await asAdmin(`DROP ROLE IF EXISTS "${appRole}"`);
    await asAdmin(`DROP ROLE IF EXISTS "${ownerRole}"`);
  });

  it('hands the table, its trigger function, the schema and the database to a NOLOGIN owner; later migrations still run', async () => {
    expect(firstChanges).toEqual([
      `created role ${ownerRole} (NOLOGIN)`,
      `database ${database}: owner ${appRole} → ${ownerRole}`,
      `table public.audit_events and its trigger function: owner ${appRole} → ${ownerRole}`,
    ]);
    expect(laterMigrations.length).toBeGreaterThan(3);
    expect(laterMigrations).toContain('080_partition_usage_ledger_routing.sql');
    const owners = await superuserPool.query<{ table_owner: string; can_login: boolean }>(
      `SELECT pg_get_userbyid(c.relowner) AS table_owner, r.rolcanlogin AS can_login
         FROM pg_class c, pg_roles r WHERE c.oid = 'audit_events'::regclass AND r.rolname = $1`,
      [ownerRole],
    );
    expect(owners.rows[0]).toEqual({ table_owner: ownerRole, can_login: false });
  });

  it("the gateway's role appends and reads through its own code, and keeps using its other tables", async () => {
    const accountId = await createAccount(app, { name: 'after hardening', tier: 'free' });
    await recordAudit(
      app,
      { type: 'cli', label: 'hardening test' },
      { accountId, action: 'account.create', targetType: 'account', targetId: accountId, after: { name: 'after hardening' } },
    );
    const events = await listAuditEvents(app, { accountId, limit: 10 });
    expect(events.map((event) => event.action)).toEqual(['account.create']);
  });

  it.each([
    ['UPDATE', "UPDATE audit_events SET action = 'forged'"],
    ['DELETE', 'DELETE FROM audit_events'],
    ['TRUNCATE', 'TRUNCATE audit_events'],
    ['disabling the trigger', 'ALTER TABLE audit_events DISABLE TRIGGER ALL'],
    ['dropping the trigger', 'DROP TRIGGER audit_events_no_change ON audit_events'],
    ['dropping the table', 'DROP TABLE audit_events'],
    ['dropping the schema', 'DROP SCHEMA public CASCADE'],
    [
      'replacing the trigger function',
      "CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'",
    ],
    ['taking the table', `ALTER TABLE audit_events OWNER TO "${appRole}"`],
    ['joining the owner role', `GRANT "${ownerRole}" TO "${appRole}"`],
    [
      'a trigger of its own',
      'CREATE TRIGGER forged BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()',
    ],
  ])("%s is refused to the gateway's role", async (_what, sql) => {
    const before = Number((await app.query<{ n: string }>('SELECT count(*) AS n FROM audit_events')).rows[0]!.n);
    expect(before).toBeGreaterThan(0);
    await expect(app.query(sql)).rejects.toMatchObject({ code: '42501' });
    expect(Number((await app.query<{ n: string }>('SELECT count(*) AS n FROM audit_events')).rows[0]!.n)).toBe(before);
    const triggers = await app.query(
      "SELECT tgname FROM pg_trigger WHERE tgrelid = 'audit_events'::regclass AND tgenabled = 'O' ORDER BY tgname",
    );
    expect(triggers.rows.map((row: { tgname: string }) => row.tgname)).toEqual(['audit_events_no_change', 'audit_events_no_truncate']);
  });

  it("dropping the whole database is refused to the gateway's role", async () => {
    const client = new Client({ connectionString: urlFor(appRole, 'postgres') });
    await client.connect();
    try {
      await expect(client.query(`DROP DATABASE "${database}" WITH (FORCE)`)).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.end();
    }
  });

  it('npm run admin -- db harden-audit: run again it changes nothing; a superuser gateway role is refused in one line', async () => {
    const env = { DATABASE_URL: appUrl, REDIS_URL: 'redis://127.0.0.1:1' };
    const again = await runAdmin(env, 'db', 'harden-audit', '--owner-url', superuserUrl, '--owner-role', ownerRole, '--json');
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(again.stdout)).toEqual({ database, app_role: appRole, owner_role: ownerRole, changes: [] });
    const human = await runAdmin(env, 'db', 'harden-audit', '--owner-url', superuserUrl, '--owner-role', ownerRole);
    expect(human.stdout.trim()).toBe(`audit log already hardened: owned by ${ownerRole}, ${appRole} may only insert and read it`);

    expectOneLine(
      await runAdmin({ ...env, DATABASE_URL: superuserUrl }, 'db', 'harden-audit', '--owner-url', superuserUrl, '--owner-role', ownerRole),
      1,
      `db harden-audit: the gateway connects as ${superuser}, a superuser: nothing can be kept from it; give the gateway a role of its own (DATABASE_URL) and run this again`,
    );
    expectOneLine(
      await runAdmin(env, 'db', 'harden-audit', '--owner-url', urlFor(superuser, 'postgres'), '--owner-role', ownerRole),
      1,
      `--owner-url connects to database postgres, the gateway uses ${database}: name the gateway's database`,
    );
    expectOneLine(
      await runAdmin(env, 'db', 'harden-audit', '--owner-url', urlFor(appRole, database), '--owner-role', ownerRole),
      1,
      `db harden-audit: the owner connection's role ${appRole} is not a superuser`,
    );
    expectOneLine(await runAdmin(env, 'db', 'harden-audit'), 2, 'db harden-audit: --owner-url is required');
  });
});
