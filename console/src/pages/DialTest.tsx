/** Dial test: does this key, its group, a model and a protocol line up? Stage by stage; never billed. */
import { useState, type FormEvent } from 'react';
import { api, get, PROTOCOLS, type ApiKey, type Model, type Page } from '../api';
import { ErrorNote, useLoad } from '../components';

interface Stage {
  stage: string;
  ok: boolean;
  detail: string;
  status?: number;
  latency_ms?: number;
}

export function DialTest() {
  const keys = useLoad(() => get<Page<ApiKey>>('/api/v1/keys'));
  const models = useLoad(() => get<Page<Model>>('/api/v1/me/available-models'));
  const [keyId, setKeyId] = useState('');
  const [model, setModel] = useState('');
  const [protocol, setProtocol] = useState('chat');
  const [result, setResult] = useState<{ ok: boolean; stages: Stage[] } | undefined>();
  const [error, setError] = useState<unknown>();
  const chosenKey = keyId || String(keys.data?.data[0]?.id ?? '');
  const chosenModel = model || (models.data?.data.find((m) => m.kind === 'chat')?.id ?? '');

  async function dial(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setResult(undefined);
    try {
      setResult(
        await api<{ ok: boolean; stages: Stage[] }>('POST', '/api/v1/dial/test', {
          keyId: Number(chosenKey),
          model: chosenModel,
          protocol,
        }),
      );
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <>
      <p>Checks a key, its routing group, a model and a protocol with a minimal real request. Not billed.</p>
      <form className="panel" onSubmit={(event) => void dial(event)} aria-label="Dial test">
        <div className="grid">
          <div className="field">
            <label htmlFor="dial-key">Key</label>
            <select id="dial-key" value={chosenKey} onChange={(e) => setKeyId(e.target.value)}>
              {keys.data?.data.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.group_name}, {k.status})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="dial-model">Model</label>
            <input id="dial-model" list="dial-models" value={chosenModel} onChange={(e) => setModel(e.target.value)} />
            <datalist id="dial-models">
              {models.data?.data.map((m) => (
                <option key={m.id} value={m.id} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <label htmlFor="dial-protocol">Protocol</label>
            <select id="dial-protocol" value={protocol} onChange={(e) => setProtocol(e.target.value)}>
              {PROTOCOLS.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </div>
        </div>
        <div className="actions">
          <button type="submit" disabled={!chosenKey || !chosenModel}>
            Dial
          </button>
        </div>
      </form>
      <ErrorNote error={error ?? keys.error} />
      {result && (
        <section aria-labelledby="dial-verdict">
          <h2 id="dial-verdict" data-testid="dial-verdict">
            {result.ok ? 'Lines up: every stage passed' : 'Does not line up'}
          </h2>
          <ol className="stages">
            {result.stages.map((stage) => (
              <li key={stage.stage} className={stage.ok ? 'ok' : 'failed'} data-testid={`stage-${stage.stage}`}>
                <span className="verdict">{stage.ok ? '✓ passed' : '✗ failed'}</span> <strong>{stage.stage}</strong>: {stage.detail}
                {stage.status !== undefined && ` (HTTP ${stage.status}${stage.latency_ms !== undefined ? `, ${stage.latency_ms} ms` : ''})`}
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}
