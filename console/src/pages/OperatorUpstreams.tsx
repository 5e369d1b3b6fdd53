/**
 * Operator: routing groups and their upstream accounts: add, edit priority/weight/models, disable,
 * health as every API process shares it (cooldowns and recent failures; the last hour minute by
 * minute), and a test button that sends one minimal real model call. Group access (public/private,
 * grants): GroupAccess.tsx.
 */
import { useState, type FormEvent } from 'react';
import { api, get, PROTOCOLS, type Page } from '../api';
import { ErrorNote, useAction, useLoad } from '../components';
import { dateTime } from '../format';
import { UpstreamHealthHistory } from './UpstreamHealthHistory';
import { GroupAccess } from './GroupAccess';

interface Group {
  id: number;
  name: string;
  family: string | null;
  visibility: 'public' | 'private';
  grants: number;
  upstreams: number;
  keys: number;
}
interface Upstream {
  provider: string | null;
  last_check: { at: string; ok: boolean; message: string | null } | null;
  id: number;
  group_id: number;
  group_name: string;
  name: string;
  protocol: string;
  base_url: string;
  models: string[];
  priority: number;
  weight: number;
  status: string;
  requests_24h: number;
  last_used_at: string | null;
  cooling_down_until: string | null;
  healthy: boolean;
  recent_failures?: number;
  recent_minutes?: number;
}
interface TestResult {
  ok: boolean;
  model: string | null;
  http_status: number | null;
  latency_ms: number;
  error_class: string | null;
  detail: string;
}
interface Provider {
  name: string;
  label: string;
  protocols: string[];
  default_base_url: string | null;
  paths: string;
  default_api_version: string | null;
  example_model: string;
}
interface Created {
  id: number;
  base_url: string;
  normalized: string[];
  verification: { ok: boolean | null; detail: string };
}

function health(u: Upstream): { label: string; css: string } {
  if (u.status !== 'active') return { label: 'disabled', css: 'disabled' };
  if (u.cooling_down_until) return { label: `cooling down until ${new Date(u.cooling_down_until).toLocaleTimeString()}`, css: 'disabled' };
  if (u.last_check && !u.last_check.ok) return { label: `last check failed: ${u.last_check.message ?? ''}`, css: 'disabled' };
  return { label: 'healthy', css: 'active' };
}
const EMPTY = {
  group_id: '',
  name: '',
  provider: 'openai',
  protocol: '',
  base_url: '',
  api_version: '',
  api_key: '',
  models: '',
  priority: '0',
  weight: '1',
  verify: true,
};

export function OperatorUpstreams() {
  const groups = useLoad(() => get<Page<Group>>('/api/v1/operator/groups'));
  const upstreams = useLoad(() => get<Page<Upstream>>('/api/v1/operator/upstreams'));
  const providers = useLoad(() => get<Page<Provider>>('/api/v1/operator/providers'));
  const [group, setGroup] = useState({ name: '', family: '', visibility: 'public' });
  const [draft, setDraft] = useState(EMPTY);
  const preset = providers.data?.data.find((p) => p.name === draft.provider);

  const { error, notice, run } = useAction(() => {
    groups.reload();
    upstreams.reload();
  });
  const patch = (u: Upstream, changes: Record<string, unknown>) =>
    void run(async () => {
      await api('PATCH', `/api/v1/operator/upstreams/${u.id}`, changes);
      return `Upstream ${u.id} updated (routing picks it up within seconds).`;
    });
  const test = (u: Upstream) =>
    void run(async () => {
      const r = await api<TestResult>('POST', `/api/v1/operator/upstreams/${u.id}/test`);
      const status = r.http_status === null ? 'no answer' : `HTTP ${r.http_status}`;
      return r.ok
        ? `Upstream ${u.id}: OK (${r.model}, ${status}, ${r.latency_ms} ms).`
        : `Upstream ${u.id}: FAILED (${r.model ?? 'verification'}, ${status}, ${r.error_class ?? 'error'}: ${r.detail}, ${r.latency_ms} ms).`;
    });
  const addGroup = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const created = await api<{ id: number }>('POST', '/api/v1/operator/groups', {
        name: group.name,
        family: group.family || null,
        visibility: group.visibility,
      });
      setGroup({ name: '', family: '', visibility: 'public' });
      return `Group ${created.id} created.`;
    });
  };
  const addUpstream = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const created = await api<Created>('POST', '/api/v1/operator/upstreams', {
        group_id: Number(draft.group_id),
        name: draft.name || undefined,
        provider: draft.provider || undefined,
        protocol: draft.protocol || undefined,
        base_url: draft.base_url || undefined,
        api_version: draft.api_version || undefined,
        api_key: draft.api_key,
        models: draft.models
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean),
        priority: Number(draft.priority),
        weight: Number(draft.weight),
        verify: draft.verify,
      });
      setDraft(EMPTY);
      const normalized = created.normalized.length ? ` Base URL ${created.base_url} (${created.normalized.join('; ')}).` : '';
      return `Upstream ${created.id} added: ${created.verification.ok ? `verified, ${created.verification.detail}` : 'not verified'}.${normalized}`;
    });
  };
  const numberField = (u: Upstream, field: 'priority' | 'weight') => (
    <>
      <label className="sr-only" htmlFor={`${field}-${u.id}`}>
        {field} of upstream {u.id}
      </label>
      <input
        id={`${field}-${u.id}`}
        className="narrow"
        inputMode="numeric"
        defaultValue={u[field]}
        onBlur={(e) => {
          if (e.target.value !== String(u[field])) patch(u, { [field]: Number(e.target.value) });
        }}
      />
    </>
  );

  return (
    <>
      <ErrorNote error={error ?? groups.error ?? upstreams.error} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <h2>Routing groups</h2>
      <div className="scroll">
        <table className="list" aria-label="Routing groups">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Name</th>
              <th scope="col">Routes</th>
              <th scope="col">Access</th>
              <th scope="col">Upstreams</th>
              <th scope="col">Keys</th>
            </tr>
          </thead>
          <tbody>
            {groups.data?.data.map((g) => (
              <tr key={g.id}>
                <td>{g.id}</td>
                <td>{g.name}</td>
                <td>{g.family ?? 'every family'}</td>
                <td>{g.visibility === 'public' ? 'public' : `private (${g.grants} accounts)`}</td>
                <td>{g.upstreams}</td>
                <td>{g.keys}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {groups.data && <GroupAccess groups={groups.data.data} onChange={() => groups.reload()} />}
      <h2>Upstream accounts</h2>
      <p>
        <small>
          Lower priority runs first; weight splits traffic within a priority. Health is <strong>shared by every API process</strong>: a
          failed call (429, 5xx, timeouts) in any process cools the account down everywhere. Test sends one minimal real model call to the
          account (not billed).
        </small>
      </p>
      <div className="actions">
        <button type="button" onClick={() => upstreams.reload()}>
          Refresh health
        </button>
      </div>
      <div className="scroll">
        <table className="list" aria-label="Upstream accounts">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Group</th>
              <th scope="col">Name</th>
              <th scope="col">Protocol</th>
              <th scope="col">Models</th>
              <th scope="col">Priority</th>
              <th scope="col">Weight</th>
              <th scope="col">Status</th>
              <th scope="col">Health</th>
              <th scope="col">Requests 24 h / last</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {upstreams.data?.data.map((u) => (
              <tr key={u.id} data-testid={`upstream-row-${u.id}`}>
                <td>{u.id}</td>
                <td>{u.group_name}</td>
                <td>
                  {u.name}
                  <br />
                  <small>{u.base_url}</small>
                </td>
                <td>
                  {u.protocol}
                  {u.provider ? (
                    <>
                      <br />
                      <small>{u.provider}</small>
                    </>
                  ) : null}
                </td>
                <td className="wrap">{u.models.join(', ')}</td>
                <td>{numberField(u, 'priority')}</td>
                <td>{numberField(u, 'weight')}</td>
                <td>
                  <span className={`status status-${u.status}`}>{u.status}</span>
                </td>
                <td data-testid={`upstream-health-${u.id}`}>
                  <span className={`status status-${health(u).css}`}>{health(u).label}</span>
                  {u.recent_failures ? (
                    <>
                      <br />
                      <small>
                        {u.recent_failures} failure{u.recent_failures === 1 ? '' : 's'} in {u.recent_minutes} min
                      </small>
                    </>
                  ) : null}
                </td>
                <td>
                  {u.requests_24h} / {dateTime(u.last_used_at)}
                </td>
                <td className="row-actions">
                  <button type="button" onClick={() => test(u)} aria-label={`Test upstream ${u.id}`}>
                    Test
                  </button>
                  <button
                    type="button"
                    onClick={() => patch(u, { status: u.status === 'active' ? 'disabled' : 'active' })}
                    aria-label={`${u.status === 'active' ? 'Disable' : 'Enable'} upstream ${u.id}`}
                  >
                    {u.status === 'active' ? 'Disable' : 'Enable'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <UpstreamHealthHistory names={new Map(upstreams.data?.data.map((u) => [u.id, u.name]) ?? [])} />
      <div className="two">
        <form className="panel" onSubmit={addUpstream} aria-label="Add upstream account">
          <h2>Add upstream account</h2>
          <div className="field">
            <label htmlFor="up-group">Group</label>
            <select id="up-group" required value={draft.group_id} onChange={(e) => setDraft({ ...draft, group_id: e.target.value })}>
              <option value="">Choose…</option>
              {groups.data?.data.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="up-name">Name</label>
            <input id="up-name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="up-provider">Provider</label>
            <select
              id="up-provider"
              value={draft.provider}
              onChange={(e) => setDraft({ ...draft, provider: e.target.value, protocol: '' })}
            >
              {providers.data?.data.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.label}
                </option>
              ))}
              <option value="">Any server of a protocol</option>
            </select>
          </div>
          {(!preset || preset.protocols.length > 1) && (
            <div className="field">
              <label htmlFor="up-protocol">Protocol</label>
              <select
                id="up-protocol"
                required={!preset}
                value={draft.protocol}
                onChange={(e) => setDraft({ ...draft, protocol: e.target.value })}
              >
                <option value="">{preset ? `${preset.protocols[0]} (default)` : 'Choose…'}</option>
                {(preset?.protocols ?? PROTOCOLS).map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </div>
          )}
          <div className="field">
            <label htmlFor="up-url">Base URL{preset?.default_base_url ? ' (optional)' : ''}</label>
            <input
              id="up-url"
              type="url"
              required={!preset?.default_base_url}
              placeholder={
                preset?.default_base_url ?? (preset?.paths === 'deployments' ? 'https://RESOURCE.openai.azure.com' : 'https://…')
              }
              value={draft.base_url}
              onChange={(e) => setDraft({ ...draft, base_url: e.target.value })}
            />
          </div>
          {preset?.paths === 'deployments' && (
            <div className="field">
              <label htmlFor="up-api-version">api-version</label>
              <input
                id="up-api-version"
                placeholder={preset.default_api_version ?? ''}
                value={draft.api_version}
                onChange={(e) => setDraft({ ...draft, api_version: e.target.value })}
              />
            </div>
          )}
          <div className="field">
            <label htmlFor="up-key">Provider API key</label>
            <input
              id="up-key"
              type="password"
              autoComplete="off"
              required
              value={draft.api_key}
              onChange={(e) => setDraft({ ...draft, api_key: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="up-models">
              Models (comma-separated{preset?.paths === 'deployments' ? '; each is a deployment name' : ', * for all'})
            </label>
            <input
              id="up-models"
              required
              placeholder={preset?.example_model ?? '*'}
              value={draft.models}
              onChange={(e) => setDraft({ ...draft, models: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="up-priority">Priority</label>
            <input
              id="up-priority"
              inputMode="numeric"
              value={draft.priority}
              onChange={(e) => setDraft({ ...draft, priority: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="up-weight">Weight</label>
            <input
              id="up-weight"
              inputMode="numeric"
              value={draft.weight}
              onChange={(e) => setDraft({ ...draft, weight: e.target.value })}
            />
          </div>
          <div className="field">
            <label>
              <input type="checkbox" checked={draft.verify} onChange={(e) => setDraft({ ...draft, verify: e.target.checked })} /> Verify
              with the provider before saving (same check as Test)
            </label>
          </div>
          <div className="actions">
            <button type="submit">Add</button>
          </div>
        </form>
        <form className="panel" onSubmit={addGroup} aria-label="Create routing group">
          <h2>Create routing group</h2>
          <div className="field">
            <label htmlFor="group-name">Name</label>
            <input id="group-name" required value={group.name} onChange={(e) => setGroup({ ...group, name: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="group-family">Family (empty routes every family)</label>
            <input id="group-family" value={group.family} onChange={(e) => setGroup({ ...group, family: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="group-visibility">Access</label>
            <select id="group-visibility" value={group.visibility} onChange={(e) => setGroup({ ...group, visibility: e.target.value })}>
              <option value="public">Public: every account</option>
              <option value="private">Private: granted accounts only</option>
            </select>
          </div>
          <div className="actions">
            <button type="submit">Create</button>
          </div>
        </form>
      </div>
    </>
  );
}
