/** The models this account can route now: capabilities, limits, prices, protocols, and a snippet per protocol. */
import { useState } from 'react';
import { get, type Model, type Page } from '../api';
import { ErrorNote, useLoad } from '../components';
import { count } from '../format';
import { mediaSnippets, snippets } from './snippets';

function price(value: unknown): string {
  if (typeof value === 'number') return `$${value}`;
  if (value && typeof value === 'object')
    return Object.entries(value as Record<string, number>)
      .map(([name, usd]) => `${name}: $${usd}`)
      .join(', ');
  return '—';
}

export function Models() {
  const models = useLoad(() => get<Page<Model>>('/api/v1/me/available-models'));
  const [open, setOpen] = useState<string | undefined>();
  const base = window.location.origin;
  return (
    <>
      <ErrorNote error={models.error} />
      {models.data?.data.length === 0 && <p>No model is routable for this account now (no active key, or no upstream serves its group).</p>}
      <div className="model-list">
        {models.data?.data.map((model) => (
          <article key={model.id} className="card model" data-testid={`model-${model.id}`}>
            <h2>
              {model.id}{' '}
              <small>
                {model.owned_by} · {model.family} · {model.kind}
              </small>
            </h2>
            <p className="tags" aria-label="Capabilities">
              {model.capabilities.map((c) => (
                <span key={c} className="tag">
                  {c}
                </span>
              ))}
            </p>
            <dl className="facts">
              <dt>Context</dt>
              <dd>{count(model.context_window)} tokens</dd>
              <dt>Max output</dt>
              <dd>{count(model.max_output_tokens)} tokens</dd>
              <dt>Input</dt>
              <dd>{model.input_modalities.join(', ')}</dd>
              <dt>Output</dt>
              <dd>{model.output_modalities.join(', ')}</dd>
              {model.pricing.input_per_million_tokens !== undefined && (
                <>
                  <dt>Input price</dt>
                  <dd>{price(model.pricing.input_per_million_tokens)} / M tokens</dd>
                </>
              )}
              {model.pricing.output_per_million_tokens !== undefined && (
                <>
                  <dt>Output price</dt>
                  <dd>{price(model.pricing.output_per_million_tokens)} / M tokens</dd>
                </>
              )}
              {model.pricing.cache_read_per_million_tokens !== undefined && (
                <>
                  <dt>Cache read</dt>
                  <dd>{price(model.pricing.cache_read_per_million_tokens)} / M tokens</dd>
                </>
              )}
              {model.pricing.cache_write_per_million_tokens !== undefined && (
                <>
                  <dt>Cache write</dt>
                  <dd>{price(model.pricing.cache_write_per_million_tokens)} / M tokens</dd>
                </>
              )}
              {model.pricing.per_image !== undefined && (
                <>
                  <dt>Per image</dt>
                  <dd>{price(model.pricing.per_image)}</dd>
                </>
              )}
              {model.pricing.per_video_second !== undefined && (
                <>
                  <dt>Per video second</dt>
                  <dd>{price(model.pricing.per_video_second)}</dd>
                </>
              )}
              <dt>Protocols</dt>
              <dd>{model.protocols.join(', ')}</dd>
              <dt>Groups</dt>
              <dd>{model.groups.join(', ')}</dd>
            </dl>
            <button type="button" aria-expanded={open === model.id} onClick={() => setOpen(open === model.id ? undefined : model.id)}>
              {open === model.id ? 'Hide snippets' : 'Show snippets'}
            </button>
            {open === model.id && (
              <div className="snippets">
                {[
                  ...(model.kind === 'chat'
                    ? model.protocols.flatMap((p) => snippets(p, model.id, base).map((s) => ({ ...s, label: `${p}: ${s.label}` })))
                    : mediaSnippets(model.kind, model.id, base)),
                ].map((s) => (
                  <figure key={s.label}>
                    <figcaption>{s.label}</figcaption>
                    <pre>
                      <code>{s.code}</code>
                    </pre>
                  </figure>
                ))}
              </div>
            )}
          </article>
        ))}
      </div>
    </>
  );
}
