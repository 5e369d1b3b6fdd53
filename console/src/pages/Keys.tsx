/** Keys: list (masked), create, edit, reveal, rotate, disable/enable, delete. A secret is on screen only after create, rotate or an explicit reveal. */
import { useState } from 'react';
import { api, get, type ApiKey, type Page } from '../api';
import { Confirm, ErrorNote, SecretBox, useLoad } from '../components';
import { dateTime, usd } from '../format';
import { KeyForm } from './KeyForm';

type Pending = { action: 'rotate' | 'delete'; key: ApiKey } | undefined;

export function Keys() {
  const keys = useLoad(() => get<Page<ApiKey>>('/api/v1/keys'));
  const [editing, setEditing] = useState<ApiKey | 'new' | undefined>();
  const [secret, setSecret] = useState<{ label: string; value: string; note: string } | undefined>();
  const [pending, setPending] = useState<Pending>();
  const [error, setError] = useState<unknown>();

  async function run(action: () => Promise<void>) {
    setError(undefined);
    try {
      await action();
      keys.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  const reveal = (key: ApiKey) =>
    run(async () => {
      const answer = await get<{ key: string }>(`/api/v1/keys/${key.id}/reveal`);
      setSecret({
        label: `Secret of ${key.name}`,
        value: answer.key,
        note: 'Revealed on request; anyone with it can spend from this account.',
      });
    });
  const setStatus = (key: ApiKey, status: 'active' | 'disabled') =>
    run(async () => {
      await api('PUT', `/api/v1/keys/${key.id}`, { status });
    });
  const confirm = () => {
    if (!pending) return;
    const { action, key } = pending;
    setPending(undefined);
    void run(async () => {
      if (action === 'rotate') {
        const rotated = await api<ApiKey>('POST', `/api/v1/keys/${key.id}/rotate`, {});
        setSecret({
          label: `New secret of ${key.name}`,
          value: rotated.key,
          note: 'Shown once: copy it now. The old secret no longer works.',
        });
      } else {
        await api('DELETE', `/api/v1/keys/${key.id}`);
        setSecret(undefined);
      }
    });
  };

  return (
    <>
      <div className="toolbar">
        <button
          type="button"
          onClick={() => {
            setEditing('new');
            setSecret(undefined);
          }}
        >
          Create key
        </button>
      </div>
      <ErrorNote error={error ?? keys.error} />
      {secret && <SecretBox label={secret.label} secret={secret.value} note={secret.note} onClose={() => setSecret(undefined)} />}
      {editing && (
        <KeyForm
          existing={editing === 'new' ? undefined : editing}
          onDone={(created) => {
            setEditing(undefined);
            keys.reload();
            if (created)
              setSecret({
                label: `Secret of ${created.name}`,
                value: created.key,
                note: 'Shown once: copy it now. Later it is shown masked.',
              });
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
      <div className="scroll">
        <table className="list" aria-label="API keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Group</th>
              <th scope="col">Status</th>
              <th scope="col">Spent / quota</th>
              <th scope="col">Limits 5h / 1d / 7d</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.data.map((key) => (
              <tr key={key.id} data-testid={`key-row-${key.id}`}>
                <td>
                  {key.name}
                  <br />
                  <small>id {key.id}</small>
                </td>
                <td>
                  <code>{key.key}</code>
                </td>
                <td>{key.group_name}</td>
                <td>
                  <span className={`status status-${key.status}`}>{key.status}</span>
                  {key.expires_at && (
                    <>
                      <br />
                      <small>expires {dateTime(key.expires_at)}</small>
                    </>
                  )}
                </td>
                <td>
                  {usd(key.spent)} / {key.quota ? usd(key.quota) : '∞'}
                </td>
                <td>{[key.rate_limit_5h, key.rate_limit_1d, key.rate_limit_7d].map((v) => (v ? usd(v) : '∞')).join(' / ')}</td>
                <td>{dateTime(key.last_used_at)}</td>
                <td className="row-actions">
                  <button type="button" onClick={() => void reveal(key)} aria-label={`Reveal ${key.name}`}>
                    Reveal
                  </button>
                  <button type="button" onClick={() => setEditing(key)} aria-label={`Edit ${key.name}`}>
                    Edit
                  </button>
                  {key.status === 'active' && (
                    <button type="button" onClick={() => void setStatus(key, 'disabled')} aria-label={`Disable ${key.name}`}>
                      Disable
                    </button>
                  )}
                  {key.status === 'disabled' && (
                    <button type="button" onClick={() => void setStatus(key, 'active')} aria-label={`Enable ${key.name}`}>
                      Enable
                    </button>
                  )}
                  {key.status !== 'revoked' && (
                    <button type="button" onClick={() => setPending({ action: 'rotate', key })} aria-label={`Rotate ${key.name}`}>
                      Rotate
                    </button>
                  )}
                  <button
                    type="button"
                    className="danger"
                    onClick={() => setPending({ action: 'delete', key })}
                    aria-label={`Delete ${key.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {keys.data?.data.length === 0 && <p>No keys yet: create one.</p>}
      <Confirm
        open={pending !== undefined}
        title={pending?.action === 'rotate' ? `Rotate ${pending.key.name}?` : `Delete ${pending?.key.name ?? ''}?`}
        confirmLabel={pending?.action === 'rotate' ? 'Rotate now' : 'Delete now'}
        onConfirm={confirm}
        onCancel={() => setPending(undefined)}
      >
        {pending?.action === 'rotate' ? (
          <p>
            A new secret replaces the current one. <strong>The old secret stops working at once</strong>, everywhere it is used.
          </p>
        ) : (
          <p>The key is deleted at once; every call with it fails from now on. Its usage history stays.</p>
        )}
      </Confirm>
    </>
  );
}
