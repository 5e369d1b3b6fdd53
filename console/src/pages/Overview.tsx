/** Balance, spend today / 7 d / 30 d, charts over the last 30 days split by model or key, and each key's windows. */
import { useMemo, useState } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { get, type Account, type Page } from '../api';
import { Chart, PALETTE } from '../Chart';
import { DataTable, ErrorNote, useLoad } from '../components';
import { count, dateTime, usd } from '../format';
import { ModelHealth } from './ModelHealth';

interface SeriesPoint {
  day: string;
  requests: number;
  cost: number;
  total_tokens: number;
  model?: string;
  api_key_id?: number | null;
}
interface Series {
  days: number;
  from: string;
  totals: Record<'today' | 'last_7d' | 'last_30d', { requests: number; cost: number }>;
  by_model: SeriesPoint[];
  by_key: SeriesPoint[];
}
interface KeyWindows {
  api_key_id: number;
  name: string;
  windows: Array<{ name: string; limit: number; spent: number; remaining: number | null; resets_at: string | null }>;
}

type Metric = 'cost' | 'requests' | 'total_tokens';
const METRICS: Array<{ value: Metric; label: string }> = [
  { value: 'cost', label: 'Spend (USD)' },
  { value: 'requests', label: 'Requests' },
  { value: 'total_tokens', label: 'Tokens' },
];

const requests = (n: number) => `${count(n)} ${n === 1 ? 'request' : 'requests'}`;

function days(from: string, n: number): string[] {
  const start = new Date(from).getTime();
  return Array.from({ length: n }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
}

export function Overview() {
  const account = useLoad(() => get<Account>('/api/v1/me/account'));
  const series = useLoad(() => get<Series>('/api/v1/me/usage/daily?days=30'));
  const windows = useLoad(() => get<Page<KeyWindows>>('/api/v1/me/key-windows'));
  const [metric, setMetric] = useState<Metric>('cost');
  const [split, setSplit] = useState<'model' | 'key'>('model');

  const chart = useMemo(() => {
    const data = series.data;
    if (!data) return undefined;
    const labels = days(data.from, data.days);
    const points = split === 'model' ? data.by_model : data.by_key;
    const name = (p: SeriesPoint) =>
      split === 'model' ? (p.model ?? '') : p.api_key_id === null || p.api_key_id === undefined ? 'deleted key' : `key ${p.api_key_id}`;
    const names = [...new Set(points.map(name))];
    const config: ChartConfiguration = {
      type: 'bar',
      data: {
        labels,
        datasets: names.map((n, i) => ({
          label: n,
          backgroundColor: PALETTE[i % PALETTE.length],
          data: labels.map((day) => points.filter((p) => p.day === day && name(p) === n).reduce((sum, p) => sum + p[metric], 0)),
        })),
      },
      options: {
        scales: {
          x: { stacked: true },
          y: {
            stacked: true,
            beginAtZero: true,
            ticks: { callback: (value) => (metric === 'cost' ? usd(Number(value)) : count(Number(value))) },
          },
        },
        plugins: { legend: { position: 'bottom' } },
      },
    };
    const rows = points.map((p) => [p.day, name(p), metric === 'cost' ? usd(p.cost) : count(p[metric])]);
    return { config, rows };
  }, [series.data, metric, split]);

  const a = account.data;
  const t = series.data?.totals;
  return (
    <>
      <ErrorNote error={account.error ?? series.error ?? windows.error} />
      <section className="cards" aria-label="Balance and spend">
        <div className="card">
          <h2>Balance</h2>
          <p className="figure" data-testid="balance">
            {a ? usd(a.balance) : '…'}
          </p>
          {a?.organization && <small>Organization wallet: {a.organization.name}</small>}
          {a && a.held > 0 && <small>{usd(a.held)} held by running tasks</small>}
        </div>
        <div className="card">
          <h2>Spend today</h2>
          <p className="figure" data-testid="spend-today">
            {t ? usd(t.today.cost) : '…'}
          </p>
          <small>{t ? requests(t.today.requests) : ''}</small>
        </div>
        <div className="card">
          <h2>Last 7 days</h2>
          <p className="figure">{t ? usd(t.last_7d.cost) : '…'}</p>
          <small>{t ? requests(t.last_7d.requests) : ''}</small>
        </div>
        <div className="card">
          <h2>Last 30 days</h2>
          <p className="figure">{t ? usd(t.last_30d.cost) : '…'}</p>
          <small>{t ? requests(t.last_30d.requests) : ''}</small>
        </div>
        {a && (
          <div className="card">
            <h2>Plan</h2>
            <p className="figure">{a.tier}</p>
            <small>{a.concurrency_cap} concurrent requests</small>
          </div>
        )}
      </section>

      <section aria-labelledby="usage-chart-title">
        <h2 id="usage-chart-title">Last 30 days</h2>
        <div className="controls">
          <label htmlFor="metric">Show</label>
          <select id="metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
            {METRICS.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
          <label htmlFor="split">Split by</label>
          <select id="split" value={split} onChange={(e) => setSplit(e.target.value as 'model' | 'key')}>
            <option value="model">Model</option>
            <option value="key">Key</option>
          </select>
        </div>
        {chart && (
          <Chart
            config={chart.config}
            label={`${METRICS.find((m) => m.value === metric)?.label} per day by ${split}`}
            testId="usage-chart"
          />
        )}
        {chart && (
          <DataTable
            caption="Chart data"
            columns={['Day', split === 'model' ? 'Model' : 'Key', 'Value']}
            rows={chart.rows}
            testId="usage-chart-data"
          />
        )}
      </section>

      <ModelHealth />

      <section aria-labelledby="windows-title">
        <h2 id="windows-title">Spend windows per key</h2>
        {windows.data?.data.length === 0 && <p>No keys yet.</p>}
        <div className="windows">
          {windows.data?.data.map((key) => (
            <div className="card" key={key.api_key_id}>
              <h3>
                {key.name} <small>(key {key.api_key_id})</small>
              </h3>
              {key.windows.map((w) => (
                <Gauge key={w.name} window={w} />
              ))}
            </div>
          ))}
        </div>
      </section>
    </>
  );
}

function Gauge({ window: w }: { window: KeyWindows['windows'][number] }) {
  const unlimited = w.limit === 0;
  const percent = unlimited ? 0 : Math.min(100, Math.round((w.spent / w.limit) * 100));
  return (
    <div className="gauge">
      <span className="gauge-label">{w.name}</span>
      <meter
        min={0}
        max={unlimited ? 1 : w.limit}
        value={unlimited ? 0 : w.spent}
        low={unlimited ? undefined : w.limit * 0.7}
        high={unlimited ? undefined : w.limit * 0.9}
        aria-label={`${w.name} window: ${usd(w.spent)} spent of ${unlimited ? 'unlimited' : usd(w.limit)}`}
      />
      <span>
        {usd(w.spent)} / {unlimited ? 'no limit' : `${usd(w.limit)} (${percent}%)`}
      </span>
      <small>{w.resets_at ? `frees from ${dateTime(w.resets_at)}` : 'nothing spent in this window'}</small>
    </div>
  );
}
