/** Usage rows with filters (key, model, protocol, status, time), cursor paging and CSV export of the filtered rows. */
import { useState } from 'react';
import { get, PROTOCOLS, type ApiKey, type Page, type UsageRow } from '../api';
import { ErrorNote, useLoad } from '../components';
import { count, dateTime, ms, usd } from '../format';

interface Filters {
  api_key_id: string;
  model: string;
  protocol: string;
  status: string;
  from: string;
  to: string;
}
const EMPTY: Filters = { api_key_id: '', model: '', protocol: '', status: '', from: '', to: '' };

function query(filters: Filters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (!value) continue;
    // datetime-local is the viewer's local time: send it as an absolute instant.
    params.set(name, name === 'from' || name === 'to' ? new Date(value).toISOString() : value);
  }
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return params.toString();
}

export function Usage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const keys = useLoad(() => get<Page<ApiKey>>('/api/v1/keys'));
  const rows = useLoad(
    () => get<Page<UsageRow>>(`/api/v1/me/usage?${query(filters, { limit: '25', ...(cursor ? { cursor } : {}) })}`),
    [filters, cursor],
  );
  const set = (field: keyof Filters) => (event: { target: { value: string } }) => setDraft({ ...draft, [field]: event.target.value });

  return (
    <>
      <form
        className="filters"
        aria-label="Usage filters"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          setFilters({ ...draft });
        }}
      >
        <div>
          <label htmlFor="f-key">Key</label>
          <select id="f-key" value={draft.api_key_id} onChange={set('api_key_id')}>
            <option value="">All keys</option>
            {keys.data?.data.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.id})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-model">Model</label>
          <input id="f-model" value={draft.model} onChange={set('model')} placeholder="any" />
        </div>
        <div>
          <label htmlFor="f-protocol">Protocol</label>
          <select id="f-protocol" value={draft.protocol} onChange={set('protocol')}>
            <option value="">Any</option>
            {PROTOCOLS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={draft.status} onChange={set('status')}>
            <option value="">Any</option>
            <option value="ok">ok</option>
            <option value="aborted">aborted</option>
          </select>
        </div>
        <div>
          <label htmlFor="f-from">From</label>
          <input id="f-from" type="datetime-local" value={draft.from} onChange={set('from')} />
        </div>
        <div>
          <label htmlFor="f-to">To</label>
          <input id="f-to" type="datetime-local" value={draft.to} onChange={set('to')} />
        </div>
        <div className="actions">
          <button type="submit">Apply</button>
          <a className="button" href={`/api/v1/me/usage/export?${query(filters)}`} download="usage.csv">
            Export CSV
          </a>
        </div>
      </form>
      <ErrorNote error={rows.error} />
      <div className="scroll">
        <table className="list" aria-label="Usage rows">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Request</th>
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Protocol</th>
              <th scope="col">Input</th>
              <th scope="col">Cache read / write</th>
              <th scope="col">Output</th>
              <th scope="col">Reasoning</th>
              <th scope="col">Cost</th>
              <th scope="col">Latency</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.data?.data.map((row) => (
              <tr key={row.id} data-testid="usage-row">
                <td>{dateTime(row.started_at)}</td>
                <td>
                  <code className="small">{row.request_id}</code>
                </td>
                <td>{row.api_key_id ?? '—'}</td>
                <td>{row.model}</td>
                <td>
                  {row.protocol}
                  {row.stream ? ' (stream)' : ''}
                </td>
                <td>{count(row.prompt_tokens)}</td>
                <td>
                  {count(row.cache_read_tokens)} / {count(row.cache_write_tokens)}
                </td>
                <td>
                  {count(row.completion_tokens)}
                  {row.images ? ` · ${row.images} img` : ''}
                  {row.video_seconds ? ` · ${row.video_seconds} s video` : ''}
                </td>
                <td>{count(row.reasoning_tokens)}</td>
                <td>{usd(row.cost)}</td>
                <td>{ms(row.duration_ms)}</td>
                <td>{row.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.data?.data.length === 0 && <p>No usage matches these filters.</p>}
      <div className="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={!rows.data?.next_cursor}
          onClick={() => rows.data?.next_cursor && setCursors([...cursors, rows.data.next_cursor])}
        >
          Older
        </button>
      </div>
      <p>
        <small>
          Latency: the request's duration as the API measured it (from the request log). Failed requests are free and have no usage rows:
          see Requests.
        </small>
      </p>
    </>
  );
}
