/** The Overview's request figures per model over the last 24 hours: requests, error rate (by class), latency and TTFB percentiles. */
import { get } from '../api';
import { ErrorNote, useLoad } from '../components';
import { count, ms } from '../format';

export interface StatsRow {
  model?: string | null;
  upstream_account_id?: number | null;
  requests: number;
  errors: number;
  aborted: number;
  error_rate: number;
  errors_by_class: Record<string, number>;
  duration_ms: Percentiles;
  ttfb_ms: Percentiles;
  output_tokens_per_second: number | null;
}
interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

const percent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.01 ? 2 : 1)} %`;

export function ModelHealth({ path = '/api/v1/me/requests/stats?by=model' }: { path?: string }) {
  const stats = useLoad(() => get<{ data: StatsRow[] }>(path), [path]);
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Error rate and latency per model (last 24 h)</h2>
      <ErrorNote error={stats.error} />
      {stats.data?.data.length === 0 && <p>No requests in the last 24 hours.</p>}
      {stats.data && stats.data.data.length > 0 && (
        <div className="scroll">
          <table className="list" aria-label="Error rate and latency per model" data-testid="model-health">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Requests</th>
                <th scope="col">Error rate</th>
                <th scope="col">Errors by class</th>
                <th scope="col">Duration p50 / p95 / p99</th>
                <th scope="col">TTFB p50 / p95</th>
                <th scope="col">Output tokens/s</th>
              </tr>
            </thead>
            <tbody>
              {stats.data.data.map((row) => (
                <tr key={String(row.model ?? row.upstream_account_id)}>
                  <td>{row.model ?? (row.upstream_account_id === undefined ? '—' : `upstream #${String(row.upstream_account_id)}`)}</td>
                  <td>{count(row.requests)}</td>
                  <td>{percent(row.error_rate)}</td>
                  <td>
                    {Object.entries(row.errors_by_class)
                      .map(([name, n]) => `${name} ${n}`)
                      .join(', ') || '—'}
                  </td>
                  <td>
                    {ms(row.duration_ms.p50)} / {ms(row.duration_ms.p95)} / {ms(row.duration_ms.p99)}
                  </td>
                  <td>
                    {ms(row.ttfb_ms.p50)} / {ms(row.ttfb_ms.p95)}
                  </td>
                  <td>{row.output_tokens_per_second ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
