/**
 * The operator's account routes: who the operator is, accounts (list, create, tier and concurrency)
 * and money (top-up and adjustment with a reason). Every change is audited.
 */
import type { Request, Response } from 'express';
import { concurrencyCap } from '../auth/concurrency-cap';
import { managementPrincipal } from '../auth/management-auth';
import { parseBody } from '../auth/parse-body';
import { creditsToUsd } from '../account/credits-to-usd';
import { createAccount } from '../process/seed';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { createAuditActorOf } from '../auth/audit-actor';
import { recordAudit } from '../audit/record-audit';
import { applyOperatorEntry } from './apply-operator-entry';
import { createAccountSchema, ledgerEntrySchema, updateAccountSchema } from './operator-schemas';
import { accountExists, findAccount, listAccounts, updateAccount } from '../db/repositories/accounts';
import { idParam } from './id-param';

function toCredits(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** The account and money routes of the operator router: what every handler shares (dependencies, the audit actor). */
export class OperatorAccountRoutes {
  private readonly actorOf: ReturnType<typeof createAuditActorOf>;

  constructor(private readonly deps: Dependencies) {
    this.actorOf = createAuditActorOf(deps);
  }

  readonly me = (_req: Request, res: Response): void => {
    res.json({ object: 'operator', user_id: managementPrincipal(res).userId });
  };

  readonly list = async (_req: Request, res: Response): Promise<void> => {
    const rows = await listAccounts(this.deps.db);
    res.json({
      object: 'list',
      data: rows.map((row) => ({
        object: 'account',
        id: row.id,
        name: row.name,
        kind: row.kind,
        tier: row.tier,
        concurrency_cap: concurrencyCap(row.tier, row.concurrencyCap),
        custom_concurrency_cap: row.concurrencyCap,
        balance: creditsToUsd(row.balanceCredits),
        balance_credits: row.balanceCredits,
        held: creditsToUsd(row.heldCredits),
        keys: row.keys,
        users: row.users,
        created_at: row.createdAt.toISOString(),
      })),
    });
  };

  readonly create = async (req: Request, res: Response): Promise<void> => {
    const input = parseBody(createAccountSchema, req.body);
    const id = await createAccount(this.deps.db, {
      name: input.name,
      tier: input.tier,
      concurrencyCap: input.concurrency_cap ?? null,
      organization: input.organization,
    });
    await recordAudit(this.deps.db, this.actorOf(req, res), {
      accountId: Number(id),
      action: 'account.create',
      targetType: 'account',
      targetId: id,
      after: input,
    });
    res.status(201).json({ object: 'account', id: Number(id) });
  };

  readonly update = async (req: Request, res: Response): Promise<void> => {
    const db = this.deps.db;
    const id = idParam(req, 'account');
    const input = parseBody(updateAccountSchema, req.body);
    const account = await findAccount(db, id);
    const before = account ? { tier: account.tier, concurrency_cap: account.concurrencyCap } : null;
    if (!(await updateAccount(db, id, { tier: input.tier, concurrencyCap: input.concurrency_cap })))
      throw new GatewayError('not_found', 'account not found');
    await recordAudit(db, this.actorOf(req, res), {
      accountId: id,
      action: 'account.update',
      targetType: 'account',
      targetId: id,
      before,
      after: input,
    });
    res.json({ object: 'account', id, updated: true });
  };

  /** A top-up or an adjustment, always with the operator's reason. */
  readonly addLedgerEntry = async (req: Request, res: Response): Promise<void> => {
    const id = idParam(req, 'account');
    const input = parseBody(ledgerEntrySchema, req.body);
    if (!(await accountExists(this.deps.db, id))) throw new GatewayError('not_found', 'account not found');
    const result = await applyOperatorEntry(this.deps, {
      accountId: id,
      kind: input.kind,
      credits: toCredits(input.amount),
      reason: input.reason,
      operatorUserId: managementPrincipal(res).userId ?? 0,
    });
    await recordAudit(this.deps.db, this.actorOf(req, res), {
      accountId: id,
      action: `money.${input.kind}`,
      targetType: 'ledger_entry',
      targetId: result.entryId,
      after: {
        kind: input.kind,
        amount_credits: toCredits(input.amount),
        reason: input.reason,
        balance_after_credits: result.balanceCredits,
      },
    });
    res.status(201).json({
      object: 'billing_transaction',
      id: result.entryId,
      account_id: id,
      kind: input.kind,
      amount: input.amount,
      balance_after: creditsToUsd(result.balanceCredits),
      balance_after_credits: result.balanceCredits,
    });
  };
}
