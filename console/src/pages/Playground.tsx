/**
 * The playground: a real, billed call through the inference path with one of the account's keys.
 * The key's secret is fetched (reveal) only for the call and never put on the page.
 */
import { useRef, useState, type FormEvent } from 'react';
import { errorMessage, get, keySecret, type ApiKey, type Model, type Page, type UsageRow } from '../api';
import { ErrorNote, useLoad } from '../components';
import { usd } from '../format';
import { readSse } from '../sse';
import { protocolCall, type PlaygroundInput } from './playground-protocols';

const SHOWN_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-remaining-credits',
  'x-org-quota-remaining-credits',
  'x-gateway-warnings',
];
const EXAMPLE_TOOL = JSON.stringify(
  {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  null,
  2,
);

async function readImage(file: File): Promise<{ mediaType: string; data: string }> {
  const url = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error('could not read the image'));
    reader.readAsDataURL(file);
  });
  return { mediaType: file.type || 'image/png', data: url.slice(url.indexOf(',') + 1) };
}

/** The billed cost, once the usage row for this request id is written (normally well under a second). */
async function billedCost(requestId: string, keyId: number, signal: AbortSignal): Promise<number | undefined> {
  for (let attempt = 0; attempt < 20 && !signal.aborted; attempt++) {
    const rows = await get<Page<UsageRow>>(`/api/v1/me/usage?api_key_id=${keyId}&limit=20`);
    const row = rows.data.find((candidate) => candidate.request_id === requestId);
    if (row) return row.cost;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return undefined;
}

export function Playground() {
  const keys = useLoad(() => get<Page<ApiKey>>('/api/v1/keys'));
  const models = useLoad(() => get<Page<Model>>('/api/v1/me/available-models'));
  const [keyId, setKeyId] = useState('');
  const [model, setModel] = useState('');
  const [protocol, setProtocol] = useState('chat');
  const [prompt, setPrompt] = useState('Say hello in one sentence.');
  const [image, setImage] = useState<File | undefined>();
  const [useTool, setUseTool] = useState(false);
  const [tool, setTool] = useState(EXAMPLE_TOOL);
  const [answer, setAnswer] = useState('');
  const [toolCall, setToolCall] = useState('');
  const [headers, setHeaders] = useState<Array<[string, string]>>([]);
  const [usage, setUsage] = useState<Record<string, unknown> | undefined>();
  const [cost, setCost] = useState<string>('');
  const [status, setStatus] = useState<'idle' | 'streaming' | 'done'>('idle');
  const [error, setError] = useState<unknown>();
  const abort = useRef<AbortController | undefined>(undefined);

  const chatModels = models.data?.data.filter((m) => m.kind === 'chat') ?? [];
  const chosenModel = chatModels.find((m) => m.id === model) ?? chatModels[0];
  const protocols = chosenModel?.protocols ?? [];
  const chosenProtocol = protocols.includes(protocol) ? protocol : (protocols[0] ?? 'chat');
  const activeKeys = keys.data?.data.filter((k) => k.status === 'active') ?? [];
  const chosenKey = activeKeys.find((k) => String(k.id) === keyId) ?? activeKeys[0];

  async function send(event: FormEvent) {
    event.preventDefault();
    if (!chosenKey || !chosenModel) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setAnswer('');
    setToolCall('');
    setHeaders([]);
    setUsage(undefined);
    setCost('');
    setError(undefined);
    setStatus('streaming');
    try {
      const input: PlaygroundInput = { model: chosenModel.id, prompt };
      if (image) input.image = await readImage(image);
      if (useTool) input.tool = JSON.parse(tool) as PlaygroundInput['tool'];
      const secret = await keySecret(chosenKey.id);
      const call = protocolCall(chosenProtocol, input, secret);
      const response = await fetch(call.url, {
        method: 'POST',
        headers: call.headers,
        body: JSON.stringify(call.body),
        signal: controller.signal,
        credentials: 'omit',
      });
      setHeaders(
        SHOWN_HEADERS.map((name) => [name, response.headers.get(name) ?? '']).filter(([, value]) => value) as Array<[string, string]>,
      );
      if (!response.ok) {
        const body: unknown = await response.json().catch(() => ({}));
        throw new Error(`${response.status}: ${errorMessage(body, response.status).message}`);
      }
      for await (const frame of readSse(response, controller.signal)) {
        if (frame.data === '[DONE]') break;
        const piece = call.read(frame.event, JSON.parse(frame.data));
        if (piece.text) setAnswer((previous) => previous + piece.text);
        if (piece.tool) setToolCall((previous) => previous + piece.tool);
        if (piece.usage) setUsage((previous) => ({ ...previous, ...piece.usage }));
      }
      setStatus('done');
      const requestId = response.headers.get('x-request-id');
      if (requestId) {
        const billed = await billedCost(requestId, chosenKey.id, controller.signal);
        setCost(billed === undefined ? 'not recorded yet' : usd(billed));
      }
    } catch (caught) {
      if (!controller.signal.aborted) setError(caught);
      setStatus('idle');
    }
  }

  return (
    <>
      <ErrorNote error={keys.error ?? models.error} />
      <form className="panel" onSubmit={(event) => void send(event)} aria-label="Playground request">
        <div className="grid">
          <div className="field">
            <label htmlFor="pg-key">Key</label>
            <select id="pg-key" value={chosenKey?.id ?? ''} onChange={(e) => setKeyId(e.target.value)}>
              {activeKeys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.key})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="pg-model">Model</label>
            <select id="pg-model" value={chosenModel?.id ?? ''} onChange={(e) => setModel(e.target.value)}>
              {chatModels.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="pg-protocol">Protocol</label>
            <select id="pg-protocol" value={chosenProtocol} onChange={(e) => setProtocol(e.target.value)}>
              {protocols.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="field">
          <label htmlFor="pg-prompt">Prompt</label>
          <textarea id="pg-prompt" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="pg-image">Image (optional)</label>
          <input
            id="pg-image"
            type="file"
            accept="image/png,image/jpeg,image/webp,image/gif"
            onChange={(e) => setImage(e.target.files?.[0])}
          />
        </div>
        <label className="inline">
          <input type="checkbox" checked={useTool} onChange={(e) => setUseTool(e.target.checked)} /> Offer a tool
        </label>
        {useTool && (
          <div className="field">
            <label htmlFor="pg-tool">Tool definition (JSON: name, description, parameters)</label>
            <textarea id="pg-tool" rows={8} value={tool} onChange={(e) => setTool(e.target.value)} spellCheck={false} />
          </div>
        )}
        <div className="actions">
          <button type="submit" disabled={!chosenKey || !chosenModel || status === 'streaming'}>
            Send (billed)
          </button>
          {status === 'streaming' && (
            <button type="button" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          )}
        </div>
        {!chosenKey && keys.data && <p>Create an active key first.</p>}
      </form>
      <ErrorNote error={error} />
      <section aria-labelledby="pg-answer" aria-busy={status === 'streaming'}>
        <h2 id="pg-answer">
          Answer {status === 'streaming' && <small role="status">streaming…</small>}
          {status === 'done' && (
            <small role="status" data-testid="pg-done">
              done
            </small>
          )}
        </h2>
        <pre className="answer" data-testid="pg-output" aria-live="polite">
          {answer}
        </pre>
        {toolCall && (
          <>
            <h3>Tool call</h3>
            <pre className="answer" data-testid="pg-tool-call">
              {toolCall}
              {toolCall.endsWith(')') ? '' : ')'}
            </pre>
          </>
        )}
        {(headers.length > 0 || usage || cost) && (
          <dl className="facts" data-testid="pg-accounting">
            {headers.map(([name, value]) => (
              <div key={name} className="fact">
                <dt>{name}</dt>
                <dd>
                  <code>{value}</code>
                </dd>
              </div>
            ))}
            {usage && (
              <div className="fact">
                <dt>usage</dt>
                <dd>
                  <code>{JSON.stringify(usage)}</code>
                </dd>
              </div>
            )}
            {cost && (
              <div className="fact">
                <dt>billed cost</dt>
                <dd data-testid="pg-cost">{cost}</dd>
              </div>
            )}
          </dl>
        )}
      </section>
    </>
  );
}
