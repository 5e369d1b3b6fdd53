/** Alerts: threshold rules on keys and on the account (each fires once per crossing), the webhooks they are sent to, and the delivery log. */
import { useState, type FormEvent } from 'react';
import { api, get, type AlertRule, type ApiKey, type Page } from '../api';
import { ErrorNote, useAction, useLoad } from '../components';
import { dateTime, usd } from '../format';
import { WebhooksPanel } from './WebhooksPanel';

const KINDS: Array<{ value: AlertRule['kind']; label: string }> = [
  { value: 'key_quota', label: 'Key: share of its quota spent' },
  { value: 'key_spend_window', label: 'Key: share of a spend window' },
  { value: 'wallet_below', label: 'Account: wallet below an amount' },
  { value: 'error_rate', label: 'Account: error rate above a share' },
];

const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 1000) / 10} %`);

function describe(rule: AlertRule): string {
  switch (rule.kind) {
    case 'key_quota':
      return `Key ${rule.api_key_id}: ${percent(rule.threshold)} of its quota`;
    case 'key_spend_window':
      return `Key ${rule.api_key_id}: ${percent(rule.threshold)} of its ${rule.window} window`;
    case 'wallet_below':
      return `Wallet below ${usd(rule.amount ?? 0)}`;
    case 'error_rate':
      return `Error rate ≥ ${percent(rule.threshold)} over ${rule.window_minutes} min (≥ ${rule.min_requests} requests)`;
  }
}

const shown = (rule: AlertRule) =>
  rule.kind === 'wallet_below' ? (rule.last_value === null ? '—' : usd(rule.last_value)) : percent(rule.last_value);

export function Alerts() {
  const rules = useLoad(() => get<Page<AlertRule>>('/api/v1/me/alerts'));
  const keys = useLoad(() => get<Page<ApiKey>>('/api/v1/keys'));
  const [draft, setDraft] = useState({
    kind: 'wallet_below' as AlertRule['kind'],
    keyId: '',
    window: '1d',
    threshold: '80',
    amount: '',
    minutes: '15',
    minRequests: '20',
  });
  const { error, notice, run } = useAction(() => rules.reload());
  const forKey = draft.kind === 'key_quota' || draft.kind === 'key_spend_window';

  const create = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const share = Number(draft.threshold) / 100;
      const body =
        draft.kind === 'wallet_below'
          ? { kind: draft.kind, amount: Number(draft.amount) }
          : draft.kind === 'error_rate'
            ? { kind: draft.kind, threshold: share, window_minutes: Number(draft.minutes), min_requests: Number(draft.minRequests) }
            : {
                kind: draft.kind,
                api_key_id: Number(draft.keyId),
                threshold: share,
                ...(draft.kind === 'key_spend_window' ? { window: draft.window } : {}),
              };
      await api('POST', '/api/v1/me/alerts', body);
      return 'Alert rule added.';
    });
  };
  const remove = (rule: AlertRule) =>
    void run(async () => {
      await api('DELETE', `/api/v1/me/alerts/${rule.id}`);
      return 'Alert rule removed.';
    });

  return (
    <>
      <ErrorNote error={error ?? rules.error} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <h2>Thresholds</h2>
      <div className="scroll">
        <table className="list" aria-label="Alert rules">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">State</th>
              <th scope="col">Last value</th>
              <th scope="col">Last fired</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rules.data?.data.map((rule) => (
              <tr key={rule.id} data-testid={`alert-row-${rule.id}`}>
                <td>
                  {describe(rule)}
                  <br />
                  <small>{rule.event}</small>
                </td>
                <td>
                  <span className={`status status-${rule.state === 'firing' ? 'disabled' : 'active'}`}>{rule.state}</span>
                </td>
                <td>{shown(rule)}</td>
                <td>{dateTime(rule.last_fired_at)}</td>
                <td className="row-actions">
                  <button type="button" className="danger" onClick={() => remove(rule)} aria-label={`Remove rule ${rule.id}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rules.data?.data.length === 0 && (
        <p>No alert rules yet. A rule fires once when its figure crosses the threshold, and again only after the figure went back.</p>
      )}
      <form className="panel" onSubmit={create} aria-label="Add alert rule">
        <h2>Add a rule</h2>
        <div className="field">
          <label htmlFor="alert-kind">Watch</label>
          <select id="alert-kind" value={draft.kind} onChange={(e) => setDraft({ ...draft, kind: e.target.value as AlertRule['kind'] })}>
            {KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        {forKey && (
          <div className="field">
            <label htmlFor="alert-key">Key</label>
            <select id="alert-key" required value={draft.keyId} onChange={(e) => setDraft({ ...draft, keyId: e.target.value })}>
              <option value="">Choose…</option>
              {keys.data?.data.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} (id {k.id})
                </option>
              ))}
            </select>
          </div>
        )}
        {draft.kind === 'key_spend_window' && (
          <div className="field">
            <label htmlFor="alert-window">Window</label>
            <select id="alert-window" value={draft.window} onChange={(e) => setDraft({ ...draft, window: e.target.value })}>
              {['5h', '1d', '7d'].map((w) => (
                <option key={w}>{w}</option>
              ))}
            </select>
          </div>
        )}
        {draft.kind === 'wallet_below' ? (
          <div className="field">
            <label htmlFor="alert-amount">Amount (USD)</label>
            <input
              id="alert-amount"
              required
              inputMode="decimal"
              value={draft.amount}
              onChange={(e) => setDraft({ ...draft, amount: e.target.value })}
            />
          </div>
        ) : (
          <div className="field">
            <label htmlFor="alert-threshold">Threshold (%)</label>
            <input
              id="alert-threshold"
              required
              inputMode="decimal"
              value={draft.threshold}
              onChange={(e) => setDraft({ ...draft, threshold: e.target.value })}
            />
          </div>
        )}
        {draft.kind === 'error_rate' && (
          <>
            <div className="field">
              <label htmlFor="alert-minutes">Window (minutes)</label>
              <input
                id="alert-minutes"
                inputMode="numeric"
                value={draft.minutes}
                onChange={(e) => setDraft({ ...draft, minutes: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="alert-min-requests">At least this many requests</label>
              <input
                id="alert-min-requests"
                inputMode="numeric"
                value={draft.minRequests}
                onChange={(e) => setDraft({ ...draft, minRequests: e.target.value })}
              />
            </div>
          </>
        )}
        <div className="actions">
          <button type="submit">Add rule</button>
        </div>
      </form>
      <WebhooksPanel />
    </>
  );
}
