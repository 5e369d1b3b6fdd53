/** Billing: top-ups, refunds and adjustments (per-request charges on demand) and the balance over time. */
import { useMemo, useState } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { get, type Account, type Page, type Transaction } from '../api';
import { Chart } from '../Chart';
import { DataTable, ErrorNote, useLoad } from '../components';
import { dateTime, usd } from '../format';

const ALL_KINDS = 'topup,refund,adjustment,charge,hold,hold_release';

export function Billing() {
  const [withCharges, setWithCharges] = useState(false);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const account = useLoad(() => get<Account>('/api/v1/me/account'));
  const list = useLoad(
    () =>
      get<Page<Transaction>>(
        `/api/v1/me/billing/transactions?limit=25${withCharges ? `&kind=${ALL_KINDS}` : ''}${cursor ? `&cursor=${cursor}` : ''}`,
      ),
    [withCharges, cursor],
  );
  // The balance history: every entry's balance after it, newest 100.
  const history = useLoad(() => get<Page<Transaction>>(`/api/v1/me/billing/transactions?limit=100&kind=${ALL_KINDS}`));

  const chart = useMemo(() => {
    const points = [...(history.data?.data ?? [])].reverse();
    const config: ChartConfiguration = {
      type: 'line',
      data: {
        labels: points.map((p) => new Date(p.created_at).toLocaleString()),
        datasets: [
          { label: 'Balance (USD)', data: points.map((p) => p.balance_after), borderColor: '#2563eb', stepped: true, pointRadius: 0 },
        ],
      },
      options: { scales: { x: { ticks: { maxTicksLimit: 6 } } }, plugins: { legend: { display: false } } },
    };
    return { config, rows: points.map((p) => [dateTime(p.created_at), usd(p.balance_after)]) };
  }, [history.data]);

  return (
    <>
      <ErrorNote error={account.error ?? list.error} />
      <section className="cards">
        <div className="card">
          <h2>Balance</h2>
          <p className="figure" data-testid="balance">
            {account.data ? usd(account.data.balance) : '…'}
          </p>
        </div>
      </section>
      <section aria-labelledby="balance-history">
        <h2 id="balance-history">Balance history</h2>
        <Chart config={chart.config} label="Balance after each ledger entry" testId="balance-chart" />
        <DataTable caption="Balance history" columns={['Time', 'Balance']} rows={chart.rows} />
      </section>
      <section aria-labelledby="transactions-title">
        <h2 id="transactions-title">Transactions</h2>
        <label className="inline">
          <input
            type="checkbox"
            checked={withCharges}
            onChange={(e) => {
              setCursors([]);
              setWithCharges(e.target.checked);
            }}
          />{' '}
          Include per-request charges and task holds
        </label>
        <div className="scroll">
          <table className="list" aria-label="Transactions">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Amount</th>
                <th scope="col">Balance after</th>
                <th scope="col">Description</th>
                <th scope="col">Reference</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.data.map((t) => (
                <tr key={t.id} data-testid="transaction-row">
                  <td>{dateTime(t.created_at)}</td>
                  <td>{t.kind}</td>
                  <td className={t.amount < 0 ? 'negative' : ''}>{usd(t.amount)}</td>
                  <td>{usd(t.balance_after)}</td>
                  <td>{t.description ?? ''}</td>
                  <td>
                    <code className="small">{t.reference ?? ''}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="pager">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
          <button
            type="button"
            disabled={!list.data?.next_cursor}
            onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}
          >
            Older
          </button>
        </div>
      </section>
    </>
  );
}
