/** Operator: the model catalog, read-only (models become editable data with issue 16). */
import { get, type Page } from '../api';
import { ErrorNote, useLoad } from '../components';
import { count } from '../format';

interface CatalogModel { id: string; family: string; owned_by: string; capabilities: string[]; context_window: number; max_output_tokens: number; protocols: string[] }

export function OperatorCatalog() {
  const catalog = useLoad(() => get<Page<CatalogModel>>('/api/v1/operator/catalog'));
  return (
    <>
      <p>Read-only: the catalog is defined in the server's configuration.</p>
      <ErrorNote error={catalog.error} />
      <div className="scroll">
        <table className="list" aria-label="Catalog">
          <thead><tr><th scope="col">Model</th><th scope="col">Family</th><th scope="col">Capabilities</th><th scope="col">Context / output</th><th scope="col">Protocols</th></tr></thead>
          <tbody>{catalog.data?.data.map((m) => (
            <tr key={m.id} data-testid={`catalog-${m.id}`}><td>{m.id}</td><td>{m.family} ({m.owned_by})</td><td className="wrap">{m.capabilities.join(', ')}</td>
              <td>{count(m.context_window)} / {count(m.max_output_tokens)}</td><td>{m.protocols.join(', ')}</td></tr>
          ))}</tbody>
        </table>
      </div>
    </>
  );
}
