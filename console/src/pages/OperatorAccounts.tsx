/** Operator: every account; create one, change tier and concurrency, top up or adjust with a reason (ledger). */
import { useState, type FormEvent } from 'react';
import { api, get, type Page } from '../api';
import { ErrorNote, useAction, useLoad } from '../components';
import { dateTime, usd } from '../format';

interface OperatorAccount {
  id: number;
  name: string;
  kind: string;
  tier: string;
  concurrency_cap: number;
  custom_concurrency_cap: number | null;
  balance: number;
  held: number;
  keys: number;
  users: number;
  created_at: string;
}
const TIERS = ['free', 'pro', 'max', 'enterprise'];

export function OperatorAccounts() {
  const accounts = useLoad(() => get<Page<OperatorAccount>>('/api/v1/operator/accounts'));
  const [draft, setDraft] = useState({ name: '', tier: 'free', concurrency: '', organization: false });
  const [entry, setEntry] = useState<{ accountId: string; kind: 'topup' | 'adjustment'; amount: string; reason: string }>({
    accountId: '',
    kind: 'topup',
    amount: '',
    reason: '',
  });

  const { error, notice, run } = useAction(() => {
    accounts.reload();
  });

  const create = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const created = await api<{ id: number }>('POST', '/api/v1/operator/accounts', {
        name: draft.name,
        tier: draft.tier,
        organization: draft.organization,
        ...(draft.concurrency ? { concurrency_cap: Number(draft.concurrency) } : {}),
      });
      setDraft({ name: '', tier: 'free', concurrency: '', organization: false });
      return `Account ${created.id} created.`;
    });
  };
  const ledger = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const result = await api<{ balance_after: number }>('POST', `/api/v1/operator/accounts/${entry.accountId}/ledger`, {
        kind: entry.kind,
        amount: Number(entry.amount),
        reason: entry.reason,
      });
      setEntry({ ...entry, amount: '', reason: '' });
      return `Recorded. Balance of account ${entry.accountId} is now ${usd(result.balance_after)}.`;
    });
  };
  const update = (account: OperatorAccount, changes: Record<string, unknown>) =>
    void run(async () => {
      await api('PATCH', `/api/v1/operator/accounts/${account.id}`, changes);
      return `Account ${account.id} updated.`;
    });

  return (
    <>
      <ErrorNote error={error ?? accounts.error} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <div className="scroll">
        <table className="list" aria-label="Accounts">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Name</th>
              <th scope="col">Tier</th>
              <th scope="col">Concurrency</th>
              <th scope="col">Balance</th>
              <th scope="col">Keys / users</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {accounts.data?.data.map((a) => (
              <tr key={a.id} data-testid={`account-row-${a.id}`}>
                <td>{a.id}</td>
                <td>
                  {a.name}
                  {a.kind === 'organization' ? ' (org)' : ''}
                </td>
                <td>
                  <label className="sr-only" htmlFor={`tier-${a.id}`}>
                    Tier of {a.name}
                  </label>
                  <select id={`tier-${a.id}`} value={a.tier} onChange={(e) => update(a, { tier: e.target.value })}>
                    {TIERS.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <label className="sr-only" htmlFor={`cap-${a.id}`}>
                    Concurrency cap of {a.name}
                  </label>
                  <input
                    id={`cap-${a.id}`}
                    className="narrow"
                    inputMode="numeric"
                    defaultValue={a.custom_concurrency_cap ?? ''}
                    placeholder={`${a.concurrency_cap} (tier)`}
                    onBlur={(e) => {
                      const value = e.target.value.trim();
                      if (value !== String(a.custom_concurrency_cap ?? '')) update(a, { concurrency_cap: value ? Number(value) : null });
                    }}
                  />
                </td>
                <td data-testid={`account-balance-${a.id}`}>
                  {usd(a.balance)}
                  {a.held ? ` (${usd(a.held)} held)` : ''}
                </td>
                <td>
                  {a.keys} / {a.users}
                </td>
                <td>{dateTime(a.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="two">
        <form className="panel" onSubmit={ledger} aria-label="Top-up or adjustment">
          <h2>Top-up or adjustment</h2>
          <div className="field">
            <label htmlFor="ledger-account">Account</label>
            <select
              id="ledger-account"
              required
              value={entry.accountId}
              onChange={(e) => setEntry({ ...entry, accountId: e.target.value })}
            >
              <option value="">Choose…</option>
              {accounts.data?.data.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.id} · {a.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="ledger-kind">Kind</label>
            <select
              id="ledger-kind"
              value={entry.kind}
              onChange={(e) => setEntry({ ...entry, kind: e.target.value as 'topup' | 'adjustment' })}
            >
              <option value="topup">Top-up (adds credits)</option>
              <option value="adjustment">Adjustment (signed)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="ledger-amount">Amount (USD)</label>
            <input
              id="ledger-amount"
              required
              inputMode="decimal"
              value={entry.amount}
              onChange={(e) => setEntry({ ...entry, amount: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="ledger-reason">Reason (kept in the ledger)</label>
            <input id="ledger-reason" required value={entry.reason} onChange={(e) => setEntry({ ...entry, reason: e.target.value })} />
          </div>
          <div className="actions">
            <button type="submit">Record</button>
          </div>
        </form>
        <form className="panel" onSubmit={create} aria-label="Create account">
          <h2>Create account</h2>
          <div className="field">
            <label htmlFor="acc-name">Name</label>
            <input id="acc-name" required value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="acc-tier">Tier</label>
            <select id="acc-tier" value={draft.tier} onChange={(e) => setDraft({ ...draft, tier: e.target.value })}>
              {TIERS.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="acc-cap">Concurrency cap</label>
            <input
              id="acc-cap"
              inputMode="numeric"
              placeholder="tier default"
              value={draft.concurrency}
              onChange={(e) => setDraft({ ...draft, concurrency: e.target.value })}
            />
          </div>
          <label className="inline">
            <input type="checkbox" checked={draft.organization} onChange={(e) => setDraft({ ...draft, organization: e.target.checked })} />{' '}
            Organization (shared wallet)
          </label>
          <div className="actions">
            <button type="submit">Create</button>
          </div>
        </form>
      </div>
    </>
  );
}
