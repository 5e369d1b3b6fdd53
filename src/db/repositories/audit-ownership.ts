/**
 * Who owns the audit log and what the gateway's own role may do with it (docs/operations.md,
 * "Audit log ownership"): the catalog reads and the ownership and privilege statements the
 * hardening step runs, on a superuser connection to the gateway's database. Role names are
 * identifiers, quoted here; nothing else is interpolated.
 */
import { escapeIdentifier } from 'pg';
import type { Queryable } from '../queryable';

export interface RoleAttributes {
  superuser: boolean;
  createRole: boolean;
  canLogin: boolean;
}

export async function readRole(db: Queryable, name: string): Promise<RoleAttributes | undefined> {
  const found = await db.query<{ rolsuper: boolean; rolcreaterole: boolean; rolcanlogin: boolean }>(
    'SELECT rolsuper, rolcreaterole, rolcanlogin FROM pg_roles WHERE rolname = $1',
    [name],
  );
  const row = found.rows[0];
  return row ? { superuser: row.rolsuper, createRole: row.rolcreaterole, canLogin: row.rolcanlogin } : undefined;
}

export async function readSession(db: Queryable): Promise<{ user: string; database: string; superuser: boolean; serverVersion: number }> {
  const found = await db.query<{ user: string; database: string; superuser: boolean; version: string }>(
    `SELECT current_user AS user, current_database() AS database, r.rolsuper AS superuser, current_setting('server_version_num') AS version
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const row = found.rows[0]!;
  return { user: row.user, database: row.database, superuser: row.superuser, serverVersion: Number(row.version) };
}

/** The audit log's table (on the search path), its schema, sequence and trigger function, and their owners. */
export interface AuditObjects {
  database: string;
  databaseOwner: string;
  schema: string;
  schemaOwner: string;
  table: string;
  tableOwner: string;
  /** Qualified name of the id sequence. */
  sequence: string;
  /** Qualified signature of the append-only trigger function. */
  triggerFunction: string;
  triggerFunctionOwner: string;
}

export async function readAuditObjects(db: Queryable): Promise<AuditObjects | undefined> {
  const found = await db.query<AuditObjects>(
    `SELECT d.datname AS database, pg_get_userbyid(d.datdba) AS "databaseOwner",
            n.nspname AS schema, pg_get_userbyid(n.nspowner) AS "schemaOwner",
            c.relname AS table, pg_get_userbyid(c.relowner) AS "tableOwner",
            pg_get_serial_sequence(c.oid::regclass::text, 'id') AS sequence,
            f.oid::regprocedure::text AS "triggerFunction", pg_get_userbyid(f.proowner) AS "triggerFunctionOwner"
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_database d ON d.datname = current_database()
       JOIN pg_proc f ON f.oid = to_regprocedure(format('%I.audit_events_append_only()', n.nspname))
      WHERE c.oid = to_regclass('audit_events')`,
  );
  return found.rows[0];
}

/** Whether `role` has the rights of `of` (is it, or a member of it, directly or not). */
export async function hasRightsOf(db: Queryable, role: string, of: string): Promise<boolean> {
  const found = await db.query<{ member: boolean }>("SELECT pg_has_role($1, $2, 'MEMBER') AS member", [role, of]);
  return found.rows[0]?.member === true;
}

/** A role that owns things and cannot log in; made NOLOGIN if it exists. True when it was created. */
export async function ensureNologinRole(db: Queryable, name: string): Promise<boolean> {
  const role = escapeIdentifier(name);
  if (await readRole(db, name)) {
    await db.query(`ALTER ROLE ${role} NOLOGIN`);
    return false;
  }
  await db.query(`CREATE ROLE ${role} NOLOGIN`);
  return true;
}

export async function revokeMembership(db: Queryable, role: string, member: string): Promise<void> {
  await db.query(`REVOKE ${escapeIdentifier(role)} FROM ${escapeIdentifier(member)}`);
}

/** The database to `owner`; `app` keeps connecting, creating schemas and temporary tables. */
export async function giveDatabase(db: Queryable, database: string, owner: string, app: string): Promise<void> {
  await db.query(`ALTER DATABASE ${escapeIdentifier(database)} OWNER TO ${escapeIdentifier(owner)}`);
  await db.query(`GRANT CONNECT, CREATE, TEMPORARY ON DATABASE ${escapeIdentifier(database)} TO ${escapeIdentifier(app)}`);
}

/** The schema to `owner`; `app` keeps creating and using objects in it (its migrations). */
export async function giveSchema(db: Queryable, schema: string, owner: string, app: string): Promise<void> {
  await db.query(`ALTER SCHEMA ${escapeIdentifier(schema)} OWNER TO ${escapeIdentifier(owner)}`);
  await grantSchemaUse(db, schema, app);
}

export async function grantSchemaUse(db: Queryable, schema: string, app: string): Promise<void> {
  await db.query(`GRANT USAGE, CREATE ON SCHEMA ${escapeIdentifier(schema)} TO ${escapeIdentifier(app)}`);
}

/**
 * The table (its indexes and id sequence follow it) and the trigger function to `owner`; `app` keeps
 * INSERT and SELECT on the table and USAGE on the sequence, nothing else.
 */
export async function giveAuditTable(db: Queryable, objects: AuditObjects, owner: string, app: string): Promise<void> {
  const table = `${escapeIdentifier(objects.schema)}.${escapeIdentifier(objects.table)}`;
  const ownerRole = escapeIdentifier(owner);
  const appRole = escapeIdentifier(app);
  await db.query(`ALTER TABLE ${table} OWNER TO ${ownerRole}`);
  // regprocedure text is already a quoted, qualified signature.
  await db.query(`ALTER FUNCTION ${objects.triggerFunction} OWNER TO ${ownerRole}`);
  await db.query(`REVOKE ALL ON TABLE ${table} FROM ${appRole}`);
  await db.query(`GRANT INSERT, SELECT ON TABLE ${table} TO ${appRole}`);
  await db.query(`REVOKE ALL ON SEQUENCE ${objects.sequence} FROM ${appRole}`);
  await db.query(`GRANT USAGE ON SEQUENCE ${objects.sequence} TO ${appRole}`);
}
