/**
 * Makes the audit log append-only for the gateway's own database role, beyond the trigger: a role
 * that owns the table (or its schema, or the database) can disable or drop the trigger, drop the
 * table or the database. This hands the table, its trigger function, and (when the gateway's role
 * owns them) its schema and the database to a NOLOGIN owner role, and leaves the gateway's role
 * INSERT and SELECT on the table, USAGE on its id sequence, and the rights its migrations need on
 * the schema and database. Run once by an operator on a superuser connection; idempotent; in one
 * transaction, checked before it commits.
 */
import type { Pool } from 'pg';
import {
  ensureNologinRole,
  giveAuditTable,
  giveDatabase,
  giveSchema,
  grantSchemaUse,
  hasRightsOf,
  readAuditObjects,
  readRole,
  readSession,
  revokeMembership,
  type AuditObjects,
} from '../db/repositories/audit-ownership';
import type { Queryable } from '../db/queryable';
import { inTransaction } from '../db/transaction';

export const DEFAULT_AUDIT_OWNER_ROLE = 'gateway_audit_owner';

/** The hardening cannot be done as asked (the message says why and what to do). */
export class AuditHardeningRefusal extends Error {}

export interface AuditHardeningReport {
  appRole: string;
  ownerRole: string;
  database: string;
  /** What changed, one line each; empty when it was already done. */
  changes: string[];
}

/** PostgreSQL 16 stopped CREATEROLE from granting roles it was not given admin of. */
const CREATEROLE_IS_CONTAINED = 160_000;

async function refuseUnsafeAppRole(db: Queryable, appRole: string, serverVersion: number): Promise<void> {
  const app = await readRole(db, appRole);
  if (!app) throw new AuditHardeningRefusal(`role ${appRole} does not exist`);
  if (app.superuser) {
    throw new AuditHardeningRefusal(
      `the gateway connects as ${appRole}, a superuser: nothing can be kept from it; give the gateway a role of its own (DATABASE_URL) and run this again`,
    );
  }
  if (app.createRole && serverVersion < CREATEROLE_IS_CONTAINED) {
    throw new AuditHardeningRefusal(
      `the gateway's role ${appRole} has CREATEROLE, which on this PostgreSQL lets it make itself a member of the owner role; ALTER ROLE ${appRole} NOCREATEROLE first`,
    );
  }
}

/** Everything the gateway's role must not have the rights of, once hardened. */
function ownersOf(objects: AuditObjects): Array<[string, string]> {
  return [
    [`table ${objects.schema}.${objects.table}`, objects.tableOwner],
    [`function ${objects.triggerFunction}`, objects.triggerFunctionOwner],
    [`schema ${objects.schema}`, objects.schemaOwner],
    [`database ${objects.database}`, objects.databaseOwner],
  ];
}

export async function hardenAuditLog(superuser: Pool, input: { appRole: string; ownerRole: string }): Promise<AuditHardeningReport> {
  const { appRole, ownerRole } = input;
  if (appRole === ownerRole) throw new AuditHardeningRefusal(`the owner role must not be the gateway's own role ${appRole}`);
  return inTransaction(superuser, async (db) => {
    const session = await readSession(db);
    if (!session.superuser) throw new AuditHardeningRefusal(`the owner connection's role ${session.user} is not a superuser`);
    await refuseUnsafeAppRole(db, appRole, session.serverVersion);
    const before = await readAuditObjects(db);
    if (!before)
      throw new AuditHardeningRefusal(
        `database ${session.database} has no audit log yet: start the gateway (or run any admin command) once so its migrations run`,
      );

    const changes: string[] = [];
    if (await ensureNologinRole(db, ownerRole)) changes.push(`created role ${ownerRole} (NOLOGIN)`);
    if (await hasRightsOf(db, appRole, ownerRole)) {
      await revokeMembership(db, ownerRole, appRole);
      changes.push(`${appRole} is no longer a member of ${ownerRole}`);
    }
    if (before.databaseOwner === appRole) {
      await giveDatabase(db, before.database, ownerRole, appRole);
      changes.push(`database ${before.database}: owner ${appRole} → ${ownerRole}`);
    }
    if (before.schemaOwner === appRole) {
      await giveSchema(db, before.schema, ownerRole, appRole);
      changes.push(`schema ${before.schema}: owner ${appRole} → ${ownerRole}`);
    } else if (before.schemaOwner === 'pg_database_owner' && before.databaseOwner === appRole) {
      // PostgreSQL 15's public schema belongs to whoever owns the database: it moved with it, and
      // the gateway's role keeps creating its tables there.
      await grantSchemaUse(db, before.schema, appRole);
    }
    if (before.tableOwner !== ownerRole || before.triggerFunctionOwner !== ownerRole) {
      changes.push(`table ${before.schema}.${before.table} and its trigger function: owner ${before.tableOwner} → ${ownerRole}`);
    }
    await giveAuditTable(db, before, ownerRole, appRole);

    const after = (await readAuditObjects(db))!;
    for (const [what, owner] of ownersOf(after)) {
      if (await hasRightsOf(db, appRole, owner)) {
        throw new AuditHardeningRefusal(
          `${appRole} still has the rights of ${owner}, which owns ${what}; make another role own it, or take ${appRole} out of ${owner}, and run this again (nothing was changed)`,
        );
      }
    }
    return { appRole, ownerRole, database: after.database, changes };
  });
}
