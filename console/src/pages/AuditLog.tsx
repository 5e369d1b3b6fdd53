/**
 * The audit log (issue 21): who changed what, when and from where. `Activity` shows the account's
 * own events (/api/v1/me/audit); the operator's `Audit` page every event (/api/v1/operator/audit),
 * optionally one account's. Newest first, paged with the listing's cursor like Billing.
 */
import { useState } from 'react';
import { get, type AuditEvent, type Page } from '../api';
import { ErrorNote, useLoad } from '../components';
import { dateTime } from '../format';

const FAMILIES: Array<[string, string]> = [
  ['', 'Everything'],
  ['key.', 'Keys'],
  ['money.', 'Money'],
  ['grant.', 'Group grants'],
  ['group.', 'Routing groups'],
  ['upstream.', 'Upstream accounts'],
  ['catalog.', 'Catalog'],
  ['console.', 'Console logins'],
  ['account.', 'Accounts'],
];

function actor(event: AuditEvent): string {
  const who = event.actor.label ?? (event.actor.id === null ? '' : `#${event.actor.id}`);
  const kind =
    { console_user: 'console user', api_key: 'API key', cli: 'admin CLI', anonymous: 'anonymous' }[event.actor.type] ?? event.actor.type;
  return who ? `${kind} ${who}` : kind;
}

function change(value: unknown): string {
  return value === null || value === undefined ? '' : JSON.stringify(value, null, 1);
}

export function AuditLog({ operator }: { operator?: boolean }) {
  const [family, setFamily] = useState('');
  const [accountId, setAccountId] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const base = operator ? '/api/v1/operator/audit' : '/api/v1/me/audit';
  const query = [
    `limit=25`,
    family && `action=${encodeURIComponent(family)}`,
    operator && /^\d+$/.test(accountId) && `account_id=${accountId}`,
    cursor && `cursor=${cursor}`,
  ]
    .filter(Boolean)
    .join('&');
  const list = useLoad(() => get<Page<AuditEvent>>(`${base}?${query}`), [query]);

  return (
    <>
      <ErrorNote error={list.error} />
      <p>
        <small>
          {operator
            ? 'Every change and console login, on every account and operator-wide.'
            : "Changes to this account's keys, money and group access, and its console logins."}{' '}
          The log cannot be edited or deleted.
        </small>
      </p>
      <div className="filters">
        <div className="field">
          <label htmlFor="audit-family">Show</label>
          <select
            id="audit-family"
            value={family}
            onChange={(e) => {
              setCursors([]);
              setFamily(e.target.value);
            }}
          >
            {FAMILIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        {operator && (
          <div className="field">
            <label htmlFor="audit-account">Account id</label>
            <input
              id="audit-account"
              inputMode="numeric"
              value={accountId}
              onChange={(e) => {
                setCursors([]);
                setAccountId(e.target.value.trim());
              }}
            />
          </div>
        )}
      </div>
      <div className="scroll">
        <table className="list" aria-label="Audit events">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              {operator && <th scope="col">Account</th>}
              <th scope="col">Who</th>
              <th scope="col">Address</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((e) => (
              <tr key={e.id} data-testid="audit-row">
                <td>{dateTime(e.created_at)}</td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>
                  {e.target.type}
                  {e.target.id ? ` ${e.target.id}` : ''}
                </td>
                {operator && <td>{e.account_id ?? '—'}</td>}
                <td>{actor(e)}</td>
                <td>{e.address ?? ''}</td>
                <td className="wrap">
                  <pre className="small">{change(e.before)}</pre>
                </td>
                <td className="wrap">
                  <pre className="small">{change(e.after)}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data?.data.length === 0 && <p>No events.</p>}
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
    </>
  );
}
