import { routableModels, type RoutingGroupView } from '../../../src/account/routable-models';
import { Catalog } from '../../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';

const catalog = new Catalog(DEFAULT_CATALOG);
const ids = (groups: RoutingGroupView[]) =>
  routableModels(catalog, groups)
    .map((r) => r.model.id)
    .sort();

describe('routableModels', () => {
  it('needs a group routing the family and an upstream serving the model on a native protocol', () => {
    expect(ids([{ id: 1, name: 'default', family: null, upstreams: [{ protocol: 'chat', models: ['gpt-4.1', 'claude-sonnet-4-5'] }] }]))
      // claude-sonnet-4-5 is native to messages only: a chat upstream listing it cannot serve it.
      .toEqual(['gpt-4.1']);
    expect(ids([{ id: 1, name: 'anthropic', family: 'anthropic', upstreams: [{ protocol: 'messages', models: ['*'] }] }])).toEqual([
      'claude-haiku-4-5',
      'claude-haiku-5-5',
      'claude-opus-4-5',
      'claude-opus-5-5',
      'claude-sonnet-4-5',
    ]);
    // A family group does not route another family even with a wildcard upstream.
    expect(ids([{ id: 1, name: 'openai', family: 'openai', upstreams: [{ protocol: 'messages', models: ['*'] }] }])).toEqual([]);
    expect(ids([{ id: 1, name: 'default', family: null, upstreams: [] }])).toEqual([]);
  });

  it('names every group that routes a model, once', () => {
    const routable = routableModels(catalog, [
      { id: 2, name: 'b', family: null, upstreams: [{ protocol: 'messages', models: ['claude-haiku-4-5'] }] },
      {
        id: 1,
        name: 'a',
        family: 'anthropic',
        upstreams: [
          { protocol: 'messages', models: ['*'] },
          { protocol: 'messages', models: ['claude-haiku-4-5'] },
        ],
      },
    ]);
    expect(routable.find((r) => r.model.id === 'claude-haiku-4-5')?.groups).toEqual(['a', 'b']);
  });

  it('leaves retired models out', () => {
    const retiredCatalog = new Catalog(DEFAULT_CATALOG.map((model) => (model.id === 'gpt-4.1' ? { ...model, retired: true } : model)));
    expect(
      routableModels(retiredCatalog, [{ id: 1, name: 'default', family: null, upstreams: [{ protocol: 'chat', models: ['*'] }] }]).map(
        (r) => r.model.id,
      ),
    ).not.toContain('gpt-4.1');
  });
});
