/** Operator: upstream failures minute by minute over the last hour, per account (stacked bars), with a table of the minutes that had any. */
import { useMemo } from 'react';
import { get } from '../api';
import { Chart, PALETTE } from '../Chart';
import { DataTable, ErrorNote, useLoad } from '../components';

interface HealthMinute {
  at: string;
  total: number;
  failures: Record<string, Record<string, number>>;
}
interface HealthHistory {
  cooling_down: Array<{ upstream_account_id: number; until: string }>;
  minutes: HealthMinute[];
}

const sum = (byReason: Record<string, number> | undefined) => Object.values(byReason ?? {}).reduce((a, b) => a + b, 0);

export function UpstreamHealthHistory({ names }: { names: Map<number, string> }) {
  const history = useLoad(() => get<HealthHistory>('/api/v1/operator/upstream-health?minutes=60'));
  const minutes = history.data?.minutes ?? [];
  const accounts = [...new Set(minutes.flatMap((m) => Object.keys(m.failures)))].sort((a, b) => Number(a) - Number(b));
  const label = (id: string) => `${names.get(Number(id)) ?? 'account'} (${id})`;
  const config = useMemo(
    () => ({
      type: 'bar' as const,
      data: {
        labels: minutes.map((m) => new Date(m.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })),
        datasets: accounts.map((id, index) => ({
          label: label(id),
          data: minutes.map((m) => sum(m.failures[id])),
          backgroundColor: PALETTE[index % PALETTE.length],
        })),
      },
      options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } },
      // Recomputed when the data changes; `label` and the palette are stable for a render of this page.
    }),
    [history.data],
  );
  const busy = minutes.filter((m) => m.total > 0);
  return (
    <section aria-label="Upstream health over time">
      <h2>Failures over the last hour</h2>
      <div className="actions">
        <button type="button" onClick={() => history.reload()}>
          Refresh history
        </button>
      </div>
      <ErrorNote error={history.error} />
      {busy.length === 0 ? (
        <p data-testid="health-history-empty">No upstream failures in the last hour.</p>
      ) : (
        <>
          <Chart config={config} label="Upstream failures per minute, by account" testId="health-history-chart" />
          <DataTable
            caption="Failures per minute"
            testId="health-history-table"
            columns={['Minute', 'Account', 'Failures by reason']}
            rows={busy.flatMap((m) =>
              Object.entries(m.failures).map(([id, byReason]) => [
                new Date(m.at).toLocaleTimeString(),
                label(id),
                Object.entries(byReason)
                  .map(([reason, n]) => `${reason}: ${n}`)
                  .join(', '),
              ]),
            )}
          />
        </>
      )}
    </section>
  );
}
