/**
 * Operator: who may use a routing group (issue 21). A public group is usable by every account; a
 * private one only by the accounts granted here. Revoking a grant stops that account's keys in the
 * group at once, on every API process.
 */
import { useState, type FormEvent } from 'react';
import { api, get, type Page } from '../api';
import { ErrorNote, useAction, useLoad } from '../components';
import { dateTime } from '../format';

export interface AccessGroup {
  id: number;
  name: string;
  visibility: 'public' | 'private';
  grants: number;
}
interface Grant {
  account_id: number;
  account_name: string;
  created_at: string;
}

export function GroupAccess({ groups, onChange }: { groups: AccessGroup[]; onChange: () => void }) {
  const [groupId, setGroupId] = useState('');
  const [accountId, setAccountId] = useState('');
  const group = groups.find((g) => String(g.id) === groupId);
  const grants = useLoad(
    () => (group ? get<Page<Grant>>(`/api/v1/operator/groups/${group.id}/grants`) : Promise.resolve(undefined)),
    [groupId],
  );
  const { error, notice, run } = useAction(() => {
    grants.reload();
    onChange();
  });

  const setVisibility = (visibility: 'public' | 'private') =>
    group &&
    void run(async () => {
      await api('PATCH', `/api/v1/operator/groups/${group.id}`, { visibility });
      return `Group ${group.name} is now ${visibility}.`;
    });
  const grant = (event: FormEvent) => {
    event.preventDefault();
    if (!group) return;
    void run(async () => {
      await api('PUT', `/api/v1/operator/groups/${group.id}/grants/${accountId.trim()}`);
      setAccountId('');
      return `Account ${accountId.trim()} may use ${group.name}.`;
    });
  };
  const revoke = (g: Grant) =>
    group &&
    void run(async () => {
      await api('DELETE', `/api/v1/operator/groups/${group.id}/grants/${g.account_id}`);
      return `Grant revoked: account ${g.account_id}'s keys in ${group.name} stop now.`;
    });

  return (
    <section className="panel" aria-labelledby="group-access-title">
      <h2 id="group-access-title">Group access</h2>
      <ErrorNote error={error ?? grants.error} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <div className="field">
        <label htmlFor="access-group">Group</label>
        <select id="access-group" value={groupId} onChange={(e) => setGroupId(e.target.value)}>
          <option value="">Choose…</option>
          {groups.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name} ({g.visibility})
            </option>
          ))}
        </select>
      </div>
      {group && (
        <>
          <p>
            {group.visibility === 'public' ? 'Every account may use this group.' : 'Only the accounts below may use this group.'}{' '}
            <button type="button" onClick={() => setVisibility(group.visibility === 'public' ? 'private' : 'public')}>
              {group.visibility === 'public' ? 'Make private' : 'Make public'}
            </button>
          </p>
          <table className="list" aria-label={`Grants of ${group.name}`}>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Granted</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {grants.data?.data.map((g) => (
                <tr key={g.account_id}>
                  <td>
                    {g.account_id} {g.account_name}
                  </td>
                  <td>{dateTime(g.created_at)}</td>
                  <td>
                    <button type="button" onClick={() => revoke(g)} aria-label={`Revoke account ${g.account_id}`}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <form onSubmit={grant} aria-label="Grant group" className="actions">
            <label htmlFor="access-account">Account id</label>
            <input
              id="access-account"
              inputMode="numeric"
              required
              pattern="[0-9]+"
              value={accountId}
              onChange={(e) => setAccountId(e.target.value)}
            />
            <button type="submit">Grant</button>
          </form>
        </>
      )}
    </section>
  );
}
