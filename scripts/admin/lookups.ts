/** Accounts and routing groups named on the command line, refused in one line when they do not exist. */
import { accountExists } from '../../src/db/repositories/accounts';
import { findGroupId } from '../../src/process/seed';
import { AdminError, id, type AdminContext } from './cli';

export async function requireAccount(context: AdminContext, raw: string): Promise<number> {
  const accountId = id(raw, '--account');
  if (!(await accountExists(await context.db(), accountId)))
    throw new AdminError(`account ${accountId} does not exist (npm run admin -- account list)`);
  return accountId;
}

export async function requireGroup(context: AdminContext, raw: string): Promise<number> {
  const groupId = await findGroupId(await context.db(), raw);
  if (groupId === undefined) throw new AdminError(`routing group "${raw}" does not exist (npm run admin -- group list)`);
  return groupId;
}
