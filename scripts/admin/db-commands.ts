/**
 * `db harden-audit`: the audit log made append-only for the gateway's own database role (see
 * src/audit/harden-audit-log.ts), run with a superuser connection that is used once and never stored.
 */
import { AuditHardeningRefusal, DEFAULT_AUDIT_OWNER_ROLE, hardenAuditLog } from '../../src/audit/harden-audit-log';
import { createPool } from '../../src/db/pool';
import { readSession } from '../../src/db/repositories/audit-ownership';
import { redactUrl } from '../../src/process/build-dependencies';
import { AdminError, requiredText, text, UsageError, type AdminCommand } from './cli';

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export const DB_COMMANDS: AdminCommand[] = [
  {
    name: 'db harden-audit',
    summary: "make the audit log append-only for the gateway's database role (owned by another role; the gateway keeps INSERT and SELECT)",
    flags: {
      'owner-url': {
        value: 'URL',
        required: true,
        help: "a superuser connection to the gateway's database, e.g. postgres://postgres@host:5432/gateway (used once, not stored)",
      },
      'owner-role': {
        value: 'NAME',
        help: `the role that will own the audit log, created NOLOGIN if missing (default ${DEFAULT_AUDIT_OWNER_ROLE})`,
      },
    },
    notes: [
      "The gateway's role is the user of DATABASE_URL and must not be a superuser; pending migrations are applied first, as that role.",
      "The database and its schema change owner too when the gateway's role owned them. Running it again changes nothing.",
    ],
    async run(context, { flags }) {
      const ownerRole = text(flags, 'owner-role') ?? DEFAULT_AUDIT_OWNER_ROLE;
      if (!ROLE_NAME.test(ownerRole))
        throw new UsageError(`--owner-role must be a lower-case role name (letters, digits, _), not "${ownerRole}"`);
      const ownerUrl = requiredText(flags, 'owner-url');
      const app = await readSession(await context.db());
      const superuser = createPool(ownerUrl, 1);
      try {
        const owner = await readSession(superuser).catch((error: Error) => {
          throw new AdminError(`cannot connect with --owner-url ${redactUrl(ownerUrl)} (${error.message})`);
        });
        if (owner.database !== app.database) {
          throw new AdminError(
            `--owner-url connects to database ${owner.database}, the gateway uses ${app.database}: name the gateway's database`,
          );
        }
        const report = await hardenAuditLog(superuser, { appRole: app.user, ownerRole });
        const human =
          report.changes.length === 0
            ? `audit log already hardened: owned by ${ownerRole}, ${app.user} may only insert and read it`
            : [
                `audit log hardened: owned by ${ownerRole}, ${app.user} may only insert and read it`,
                ...report.changes.map((change) => `  ${change}`),
              ].join('\n');
        context.print(
          { database: report.database, app_role: report.appRole, owner_role: report.ownerRole, changes: report.changes },
          human,
        );
      } catch (error) {
        if (error instanceof AuditHardeningRefusal) throw new AdminError(`db harden-audit: ${error.message}`);
        throw error;
      } finally {
        await superuser.end();
      }
    },
  },
];
