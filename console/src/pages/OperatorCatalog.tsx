/**
 * Operator: the model catalog, editable through the same catalog service as the admin CLI: change a
 * model's prices, add an alias, retire or restore a model. Every API process picks a change up
 * within seconds; the catalog service's refusals (e.g. a protocol the family forbids) show as errors.
 */
import { useState, type FormEvent } from 'react';
import { api, get, type Page } from '../api';
import { Confirm, ErrorNote, useAction, useLoad } from '../components';
import { count, usd } from '../format';

interface Prices {
  inputPerMillion?: number;
  outputPerMillion?: number;
}
interface CatalogModel {
  id: string;
  family: string;
  owned_by: string;
  capabilities: string[];
  context_window: number;
  max_output_tokens: number;
  protocols: string[];
  aliases: string[];
  retired: boolean;
  prices: Prices;
}
const CREDITS_PER_USD = 1_000_000;
const perMillion = (credits: number | undefined) => (credits === undefined ? '—' : usd(credits / CREDITS_PER_USD));
const toCredits = (text: string) => (text.trim() === '' ? undefined : Math.round(Number(text) * CREDITS_PER_USD));

export function OperatorCatalog() {
  const catalog = useLoad(() => get<Page<CatalogModel>>('/api/v1/operator/catalog'));
  const [price, setPrice] = useState({ model: '', input: '', output: '' });
  const [alias, setAlias] = useState({ model: '', alias: '' });
  const [retiring, setRetiring] = useState<CatalogModel>();
  const models = catalog.data?.data ?? [];

  const { error, notice, run } = useAction(() => {
    catalog.reload();
  });
  const changePrice = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const prices = { inputPerMillion: toCredits(price.input), outputPerMillion: toCredits(price.output) };
      await api('PATCH', `/api/v1/operator/catalog/${encodeURIComponent(price.model)}`, { prices });
      setPrice({ model: '', input: '', output: '' });
      return `Prices of ${price.model} changed; requests that end from now on are charged the new prices.`;
    });
  };
  const addAlias = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api('POST', `/api/v1/operator/catalog/${encodeURIComponent(alias.model)}/aliases`, { alias: alias.alias });
      setAlias({ model: '', alias: '' });
      return `Alias ${alias.alias} now names ${alias.model}.`;
    });
  };
  const setRetired = (model: CatalogModel, retired: boolean) =>
    void run(async () => {
      setRetiring(undefined);
      await api('POST', `/api/v1/operator/catalog/${encodeURIComponent(model.id)}/retire`, { retired });
      return retired ? `${model.id} retired: it is no longer listed and calls naming it are refused.` : `${model.id} restored.`;
    });
  const modelSelect = (id: string, value: string, onChange: (value: string) => void) => (
    <select id={id} required value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Choose…</option>
      {models
        .filter((m) => !m.retired)
        .map((m) => (
          <option key={m.id} value={m.id}>
            {m.id}
          </option>
        ))}
    </select>
  );

  return (
    <>
      <p>
        The catalog lives in PostgreSQL; changes here and from the admin CLI (<code>admin model …</code>) reach every API process within
        seconds.
      </p>
      <ErrorNote error={error ?? catalog.error} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <div className="scroll">
        <table className="list" aria-label="Catalog">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Family</th>
              <th scope="col">Aliases</th>
              <th scope="col">Input / output per 1M</th>
              <th scope="col">Context / output</th>
              <th scope="col">Protocols</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.id} data-testid={`catalog-${m.id}`}>
                <td>{m.id}</td>
                <td>
                  {m.family} ({m.owned_by})
                </td>
                <td className="wrap">{m.aliases.join(', ') || '—'}</td>
                <td>
                  {perMillion(m.prices.inputPerMillion)} / {perMillion(m.prices.outputPerMillion)}
                </td>
                <td>
                  {count(m.context_window)} / {count(m.max_output_tokens)}
                </td>
                <td>{m.protocols.join(', ')}</td>
                <td>
                  <span className={`status status-${m.retired ? 'disabled' : 'active'}`}>{m.retired ? 'retired' : 'active'}</span>
                </td>
                <td className="row-actions">
                  {m.retired ? (
                    <button type="button" onClick={() => setRetired(m, false)} aria-label={`Restore ${m.id}`}>
                      Restore
                    </button>
                  ) : (
                    <button type="button" className="danger" onClick={() => setRetiring(m)} aria-label={`Retire ${m.id}`}>
                      Retire
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="two">
        <form className="panel" onSubmit={changePrice} aria-label="Change prices">
          <h2>Change prices</h2>
          <div className="field">
            <label htmlFor="price-model">Model</label>
            {modelSelect('price-model', price.model, (model) => setPrice({ ...price, model }))}
          </div>
          <div className="field">
            <label htmlFor="price-input">Input USD per 1M tokens (empty keeps it)</label>
            <input
              id="price-input"
              inputMode="decimal"
              value={price.input}
              onChange={(e) => setPrice({ ...price, input: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="price-output">Output USD per 1M tokens (empty keeps it)</label>
            <input
              id="price-output"
              inputMode="decimal"
              value={price.output}
              onChange={(e) => setPrice({ ...price, output: e.target.value })}
            />
          </div>
          <div className="actions">
            <button type="submit">Change prices</button>
          </div>
        </form>
        <form className="panel" onSubmit={addAlias} aria-label="Add alias">
          <h2>Add alias</h2>
          <div className="field">
            <label htmlFor="alias-model">Model</label>
            {modelSelect('alias-model', alias.model, (model) => setAlias({ ...alias, model }))}
          </div>
          <div className="field">
            <label htmlFor="alias-name">Alias</label>
            <input id="alias-name" required value={alias.alias} onChange={(e) => setAlias({ ...alias, alias: e.target.value })} />
          </div>
          <div className="actions">
            <button type="submit">Add alias</button>
          </div>
        </form>
      </div>
      <Confirm
        open={retiring !== undefined}
        title={`Retire ${retiring?.id ?? ''}?`}
        confirmLabel="Retire"
        onConfirm={() => retiring && setRetired(retiring, true)}
        onCancel={() => setRetiring(undefined)}
      >
        <p>
          It stops being listed and calls naming it (or its aliases) are refused with 400 unsupported_model, on every API process within
          seconds.
        </p>
      </Confirm>
    </>
  );
}
