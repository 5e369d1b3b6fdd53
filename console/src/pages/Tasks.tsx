/**
 * Tasks: submit a video or batch-image task with a key, follow it live on the task event stream,
 * see the result (video player, images), cancel. The key's secret is used for the calls only.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorMessage, get, keySecret, type ApiKey, type Model, type Page } from '../api';
import { ErrorNote, useLoad } from '../components';
import { readSse } from '../sse';

interface Task {
  task_id: string;
  kind: string;
  model: string;
  status: string;
  progress: number;
  estimated_credits: number;
  actual_credits: number | null;
  result: { items: Array<{ url: string; content_type: string; prompt_index?: number }> } | null;
  error: { code: string; message: string } | null;
}

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);

async function taskCall<T = Task>(path: string, keyId: number, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': await keySecret(keyId) },
    body: JSON.stringify(body),
    credentials: 'omit',
  });
  const parsed: unknown = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${response.status}: ${errorMessage(parsed, response.status).message}`);
  return parsed as T;
}

export function Tasks() {
  const keys = useLoad(() => get<Page<ApiKey>>('/api/v1/keys'));
  const models = useLoad(() => get<Page<Model>>('/api/v1/me/available-models'));
  const media = models.data?.data.filter((m) => m.kind === 'video' || m.kind === 'image') ?? [];
  const [keyId, setKeyId] = useState('');
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('A lighthouse at dusk, waves below');
  const [duration, setDuration] = useState('4');
  const [task, setTask] = useState<Task | undefined>();
  const [events, setEvents] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const stream = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => stream.current?.abort(), []);

  const activeKeys = keys.data?.data.filter((k) => k.status === 'active') ?? [];
  const chosenKey = activeKeys.find((k) => String(k.id) === keyId) ?? activeKeys[0];
  const chosenModel = media.find((m) => m.id === model) ?? media[0];

  async function follow(taskId: string, key: number) {
    stream.current?.abort();
    const controller = new AbortController();
    stream.current = controller;
    const response = await fetch(`/v1/tasks/stream/${encodeURIComponent(taskId)}`, {
      headers: { accept: 'text/event-stream', 'x-api-key': await keySecret(key) },
      signal: controller.signal,
      credentials: 'omit',
    });
    if (!response.ok) throw new Error(`task stream: HTTP ${response.status}`);
    for await (const frame of readSse(response, controller.signal)) {
      const update = JSON.parse(frame.data) as Task;
      setTask(update);
      setEvents((previous) => [...previous, `#${frame.id ?? '?'} ${update.status} ${update.progress}%`]);
      if (FINAL.has(update.status)) break;
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!chosenKey || !chosenModel) return;
    setError(undefined);
    setEvents([]);
    setTask(undefined);
    try {
      const body =
        chosenModel.kind === 'video'
          ? { model: chosenModel.id, prompt, duration_seconds: Number(duration) }
          : {
              model: chosenModel.id,
              prompts: prompt
                .split('\n')
                .map((line) => line.trim())
                .filter(Boolean),
            };
      // The submit answer is short (id, status, estimate); the stream's first event carries the whole task.
      const submitted = await taskCall<Pick<Task, 'task_id' | 'status' | 'estimated_credits'>>('/v1/tasks/submit', chosenKey.id, body);
      setTask({ progress: 0, result: null, error: null, actual_credits: null, kind: '', model: chosenModel.id, ...submitted });
      await follow(submitted.task_id, chosenKey.id);
    } catch (caught) {
      if (!(caught instanceof DOMException && caught.name === 'AbortError')) setError(caught);
    }
  }

  async function cancel() {
    if (!task || !chosenKey) return;
    try {
      setTask(await taskCall('/v1/tasks/cancel', chosenKey.id, { task_id: task.task_id }));
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <>
      <form className="panel" onSubmit={(event) => void submit(event)} aria-label="Submit a task">
        <div className="grid">
          <div className="field">
            <label htmlFor="task-key">Key</label>
            <select id="task-key" value={chosenKey?.id ?? ''} onChange={(e) => setKeyId(e.target.value)}>
              {activeKeys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.key})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="task-model">Model</label>
            <select id="task-model" value={chosenModel?.id ?? ''} onChange={(e) => setModel(e.target.value)}>
              {media.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id} ({m.kind === 'video' ? 'video' : 'batch image'})
                </option>
              ))}
            </select>
          </div>
          {chosenModel?.kind === 'video' && (
            <div className="field">
              <label htmlFor="task-duration">Duration (seconds)</label>
              <input id="task-duration" inputMode="numeric" value={duration} onChange={(e) => setDuration(e.target.value)} />
            </div>
          )}
        </div>
        <div className="field">
          <label htmlFor="task-prompt">{chosenModel?.kind === 'image' ? 'Prompts (one image per line)' : 'Prompt'}</label>
          <textarea id="task-prompt" rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} required />
        </div>
        <div className="actions">
          <button type="submit" disabled={!chosenKey || !chosenModel}>
            Submit (billed)
          </button>
          {task && !FINAL.has(task.status) && (
            <button type="button" className="danger" onClick={() => void cancel()}>
              Cancel task
            </button>
          )}
        </div>
      </form>
      <ErrorNote error={error ?? keys.error ?? models.error} />
      {task && (
        <section aria-labelledby="task-title">
          <h2 id="task-title">
            Task <code>{task.task_id}</code>
          </h2>
          <p role="status">
            Status: <strong data-testid="task-status">{task.status}</strong> · {task.progress ?? 0}% · estimated{' '}
            {task.estimated_credits.toLocaleString('en-US')} credits
            {typeof task.actual_credits === 'number' ? ` · charged ${task.actual_credits.toLocaleString('en-US')} credits` : ''}
          </p>
          <progress max={100} value={task.progress} aria-label="Task progress" />
          {task.error && (
            <p className="error">
              {task.error.code}: {task.error.message}
            </p>
          )}
          {task.result?.items.map((item) =>
            item.content_type.startsWith('video/') ? (
              <video key={item.url} controls src={item.url} className="result" data-testid="task-video" />
            ) : (
              <img
                key={item.url}
                src={item.url}
                alt={`Result image ${(item.prompt_index ?? 0) + 1}`}
                className="result"
                data-testid="task-image"
              />
            ),
          )}
          <h3>Events</h3>
          <ol className="events" data-testid="task-events">
            {events.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}
