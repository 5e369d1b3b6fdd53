/**
 * The request log (issue 22): every request that reached authentication, failures included, with
 * filters, cursor paging, a live tail (the newest page polled every few seconds) and a detail view:
 * the routing decision chain, usage and ledger rows, kept bodies, and a curl that reproduces the
 * request with the key left as $GATEWAY_API_KEY. Operators get the same across accounts.
 */
import { useEffect, useState } from 'react';
import { get, PROTOCOLS, type Page, type RequestDetail, type RequestRecord } from '../api';
import { ErrorNote, useLoad } from '../components';
import { count, dateTime, ms, usd } from '../format';
import { curlFor } from './request-curl';

interface Filters {
  status: string;
  error_class: string;
  model: string;
  api_key_id: string;
  protocol: string;
  since: string;
  until: string;
  account_id: string;
}
const EMPTY: Filters = { status: '', error_class: '', model: '', api_key_id: '', protocol: '', since: '', until: '', account_id: '' };
const TAIL_MS = 3_000;

function query(filters: Filters, extra: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value) params.set(name, name === 'since' || name === 'until' ? new Date(value).toISOString() : value.trim());
  }
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return params.toString();
}

export function Requests({ operator = false }: { operator?: boolean }) {
  const base = operator ? '/api/v1/operator/requests' : '/api/v1/me/requests';
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [cursors, setCursors] = useState<string[]>([]);
  const [live, setLive] = useState(false);
  const [openId, setOpenId] = useState<string | undefined>();
  const cursor = cursors[cursors.length - 1];
  const rows = useLoad(
    () => get<Page<RequestRecord>>(`${base}?${query(filters, { limit: '25', ...(cursor ? { cursor } : {}) })}`),
    [filters, cursor, base],
  );
  const set = (field: keyof Filters) => (event: { target: { value: string } }) => setDraft({ ...draft, [field]: event.target.value });

  // Live tail: the newest page, polled while the box is ticked.
  useEffect(() => {
    if (!live) return undefined;
    setCursors([]);
    const timer = setInterval(rows.reload, TAIL_MS);
    return () => clearInterval(timer);
  }, [live]);

  return (
    <>
      <form
        className="filters"
        aria-label="Request filters"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          setFilters({ ...draft });
        }}
      >
        {operator && (
          <div>
            <label htmlFor="r-account">Account</label>
            <input id="r-account" value={draft.account_id} onChange={set('account_id')} placeholder="any" inputMode="numeric" />
          </div>
        )}
        <div>
          <label htmlFor="r-status">Status</label>
          <input id="r-status" list="r-status-choices" value={draft.status} onChange={set('status')} placeholder="ok, error, 4xx, 429…" />
          <datalist id="r-status-choices">
            {['ok', 'error', 'aborted', '4xx', '5xx', '429'].map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </div>
        <div>
          <label htmlFor="r-class">Error class</label>
          <input id="r-class" value={draft.error_class} onChange={set('error_class')} placeholder="any" />
        </div>
        <div>
          <label htmlFor="r-model">Model</label>
          <input id="r-model" value={draft.model} onChange={set('model')} placeholder="any" />
        </div>
        <div>
          <label htmlFor="r-key">Key id</label>
          <input id="r-key" value={draft.api_key_id} onChange={set('api_key_id')} placeholder="any" inputMode="numeric" />
        </div>
        <div>
          <label htmlFor="r-protocol">Protocol</label>
          <select id="r-protocol" value={draft.protocol} onChange={set('protocol')}>
            <option value="">Any</option>
            {[...PROTOCOLS, 'images', 'tasks', 'count-tokens'].map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="r-since">Since</label>
          <input id="r-since" type="datetime-local" value={draft.since} onChange={set('since')} />
        </div>
        <div>
          <label htmlFor="r-until">Until</label>
          <input id="r-until" type="datetime-local" value={draft.until} onChange={set('until')} />
        </div>
        <div className="actions">
          <button type="submit">Apply</button>
          <label>
            <input type="checkbox" checked={live} onChange={(event) => setLive(event.target.checked)} /> Live tail
          </label>
        </div>
      </form>
      <ErrorNote error={rows.error} />
      <div className="scroll">
        <table className="list" aria-label="Requests">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Request</th>
              {operator && <th scope="col">Account</th>}
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Protocol</th>
              <th scope="col">Status</th>
              <th scope="col">Error class</th>
              <th scope="col">Duration</th>
              <th scope="col">TTFB</th>
              <th scope="col">Tokens in / out</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.data?.data.map((row) => (
              <tr key={row.request_id} data-testid="request-row" data-outcome={row.outcome}>
                <td>{dateTime(row.created_at)}</td>
                <td>
                  <button type="button" className="link" onClick={() => setOpenId(row.request_id)}>
                    <code className="small">{row.request_id}</code>
                  </button>
                </td>
                {operator && <td>{row.account_id}</td>}
                <td>{row.api_key_id ?? '—'}</td>
                <td>{row.model ?? '—'}</td>
                <td>
                  {row.protocol}
                  {row.stream ? ' (stream)' : ''}
                  {row.replayed ? ' (replayed)' : ''}
                </td>
                <td>
                  {row.status} {row.outcome}
                </td>
                <td>{row.error_class ?? '—'}</td>
                <td>{ms(row.duration_ms)}</td>
                <td>{ms(row.ttfb_ms)}</td>
                <td>
                  {count(row.input_tokens)} / {count(row.output_tokens)}
                </td>
                <td>{usd(row.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.data?.data.length === 0 && <p>No request matches these filters.</p>}
      <div className="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={live || !rows.data?.next_cursor}
          onClick={() => rows.data?.next_cursor && setCursors([...cursors, rows.data.next_cursor])}
        >
          Older
        </button>
      </div>
      {openId && <RequestView path={`${base}/${openId}`} onClose={() => setOpenId(undefined)} />}
    </>
  );
}

function RequestView({ path, onClose }: { path: string; onClose: () => void }) {
  const detail = useLoad(() => get<RequestDetail>(path), [path]);
  const [copied, setCopied] = useState(false);
  const record = detail.data;
  const curl = record ? curlFor(record, window.location.origin) : '';
  return (
    <section className="card request-detail" aria-labelledby="request-detail-title" data-testid="request-detail">
      <h2 id="request-detail-title">
        Request <code>{record?.request_id ?? '…'}</code>
      </h2>
      <button type="button" onClick={onClose}>
        Close
      </button>
      <ErrorNote error={detail.error} />
      {record && (
        <>
          <dl className="facts">
            <dt>Outcome</dt>
            <dd>
              {record.status} {record.outcome}
              {record.error_class ? ` · ${record.error_class}` : ''}
            </dd>
            <dt>Model</dt>
            <dd>
              {record.model ?? '—'} via {record.protocol}
              {record.upstream_account_id ? ` · upstream #${record.upstream_account_id}` : ''}
            </dd>
            <dt>Duration</dt>
            <dd>
              {ms(record.duration_ms)} (first byte {ms(record.ttfb_ms)})
            </dd>
            <dt>Tokens</dt>
            <dd>
              {count(record.input_tokens)} in / {count(record.output_tokens)} out · {usd(record.cost)}
            </dd>
            {record.warnings.length > 0 && (
              <>
                <dt>Warnings</dt>
                <dd>{record.warnings.join(', ')}</dd>
              </>
            )}
          </dl>
          <h3>Routing</h3>
          {record.routing ? (
            <ol data-testid="routing-steps">
              {record.routing.steps.map((step, index) => (
                <li key={index}>
                  upstream #{String(step.upstream_account_id)} ({String(step.protocol)}): {String(step.outcome)}
                  {step.failure ? ` — ${JSON.stringify(step.failure)}` : ''}
                  {step.reason ? ` — ${String(step.reason)}` : ''}
                </li>
              ))}
            </ol>
          ) : (
            <p>
              Served by its first account{record.upstream_account_id ? ` (#${record.upstream_account_id})` : ''}; no decision chain stored.
            </p>
          )}
          <h3>Billing</h3>
          {record.usage ? (
            <p>
              Usage row {record.usage.id}: {usd(record.usage.cost)}; ledger:{' '}
              {record.ledger_entries.map((entry) => `${entry.kind} ${usd(entry.amount)}`).join(', ') || '—'}
            </p>
          ) : (
            <p>Not billed.</p>
          )}
          <h3>Bodies</h3>
          {record.bodies ? (
            <>
              {record.bodies.truncated && <p>Cut at the size cap.</p>}
              <h4>Request</h4>
              <pre data-testid="request-body">{record.bodies.request ?? '—'}</pre>
              <h4>Response{record.bodies.stream_events !== null ? ` (assembled from ${record.bodies.stream_events} events)` : ''}</h4>
              <pre data-testid="response-body">{record.bodies.response ?? '—'}</pre>
            </>
          ) : (
            <p>Bodies are not kept for this request (an operator allows keeping them per account).</p>
          )}
          <h3>Reproduce</h3>
          <textarea readOnly aria-label="curl command" rows={6} value={curl} data-testid="request-curl" />
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard?.writeText(curl).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            Copy curl
          </button>
          {copied && <span role="status"> Copied.</span>}
        </>
      )}
    </section>
  );
}
