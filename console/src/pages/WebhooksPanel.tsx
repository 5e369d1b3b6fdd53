/** The Alerts page's webhooks (add, enable/disable, send a test, remove; the secret shown once) and their delivery log. */
import { useState, type FormEvent } from 'react';
import { api, get, type Page, type Webhook, type WebhookDelivery } from '../api';
import { ErrorNote, SecretBox, useAction, useLoad } from '../components';
import { dateTime } from '../format';

export function WebhooksPanel() {
  const webhooks = useLoad(() => get<Page<Webhook>>('/api/v1/me/webhooks'));
  const deliveries = useLoad(() => get<Page<WebhookDelivery>>('/api/v1/me/webhook-deliveries?limit=50'));
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | undefined>();
  const { error, notice, run } = useAction(() => {
    webhooks.reload();
    deliveries.reload();
  });

  const add = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const created = await api<Webhook>('POST', '/api/v1/me/webhooks', { url });
      setUrl('');
      setSecret(created.secret);
      return `Webhook ${created.id} added.`;
    });
  };
  const test = (hook: Webhook) =>
    void run(async () => {
      const sent = await api<{ id: number }>('POST', `/api/v1/me/webhooks/${hook.id}/test`);
      return `Test delivery ${sent.id} queued: see the delivery log.`;
    });
  const toggle = (hook: Webhook) =>
    void run(async () => {
      await api('PATCH', `/api/v1/me/webhooks/${hook.id}`, { active: !hook.active });
      return `Webhook ${hook.id} ${hook.active ? 'disabled' : 'enabled'}.`;
    });
  const remove = (hook: Webhook) =>
    void run(async () => {
      await api('DELETE', `/api/v1/me/webhooks/${hook.id}`);
      return `Webhook ${hook.id} removed.`;
    });

  return (
    <>
      <h2>Webhooks</h2>
      <ErrorNote error={error ?? webhooks.error} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {secret && (
        <SecretBox
          label="Signing secret"
          secret={secret}
          note="Shown once: verify the Webhook-Signature header with it (docs/webhooks.md)."
          onClose={() => setSecret(undefined)}
        />
      )}
      <div className="scroll">
        <table className="list" aria-label="Webhooks">
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Secret</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {webhooks.data?.data.map((hook) => (
              <tr key={hook.id} data-testid={`webhook-row-${hook.id}`}>
                <td>
                  <code>{hook.url}</code>
                </td>
                <td>{hook.events.join(', ')}</td>
                <td>
                  <code>…{hook.secret_last4}</code>
                </td>
                <td>
                  <span className={`status status-${hook.active ? 'active' : 'disabled'}`}>{hook.active ? 'active' : 'disabled'}</span>
                </td>
                <td className="row-actions">
                  <button type="button" onClick={() => test(hook)} aria-label={`Send a test to webhook ${hook.id}`}>
                    Send test
                  </button>
                  <button type="button" onClick={() => toggle(hook)}>
                    {hook.active ? 'Disable' : 'Enable'}
                  </button>
                  <button type="button" className="danger" onClick={() => remove(hook)} aria-label={`Remove webhook ${hook.id}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="panel" onSubmit={add} aria-label="Add webhook">
        <div className="field">
          <label htmlFor="webhook-url">Webhook URL</label>
          <input
            id="webhook-url"
            required
            type="url"
            placeholder="https://example.com/hooks/gateway"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </div>
        <div className="actions">
          <button type="submit">Add webhook</button>
        </div>
      </form>
      <h2>Deliveries</h2>
      <div className="toolbar">
        <button type="button" onClick={() => deliveries.reload()}>
          Refresh
        </button>
      </div>
      <ErrorNote error={deliveries.error} />
      <div className="scroll">
        <table className="list" aria-label="Webhook deliveries">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Event</th>
              <th scope="col">Webhook</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data?.data.map((d) => (
              <tr key={d.id} data-testid={`delivery-row-${d.id}`}>
                <td>{d.id}</td>
                <td>{d.event}</td>
                <td>{d.webhook_id}</td>
                <td>
                  <span className={`status status-${d.status === 'delivered' ? 'active' : d.status === 'failed' ? 'revoked' : 'disabled'}`}>
                    {d.status}
                  </span>
                </td>
                <td>{d.attempts}</td>
                <td>
                  {d.last_http_status ? `HTTP ${d.last_http_status}` : ''}
                  {d.last_error ? ` ${d.last_error}` : ''}
                </td>
                <td>{dateTime(d.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {deliveries.data?.data.length === 0 && <p>No deliveries yet.</p>}
    </>
  );
}
