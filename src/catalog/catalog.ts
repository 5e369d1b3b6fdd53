/** In-memory catalog lookups: by slug or alias, listing with filters, the public model shape. */
import type { Protocol } from '../ir/protocol';
import type { Capability, CatalogModel } from './model';

export interface PublicModel {
  id: string;
  object: 'model';
  owned_by: string;
  family: string;
  capabilities: Capability[];
  context_window: number;
  max_output_tokens: number;
  input_modalities: string[];
  output_modalities: string[];
  pricing_url: string;
  created: number;
  protocols: Protocol[];
}

export class Catalog {
  /** Slugs and aliases alike: one name, one model. */
  private readonly byName = new Map<string, CatalogModel>();

  constructor(readonly models: readonly CatalogModel[], private readonly pricingUrl = 'https://example.invalid/pricing') {
    for (const model of models) {
      for (const name of [model.id, ...(model.aliases ?? [])]) {
        const taken = this.byName.get(name);
        if (taken) throw new Error(`catalog name ${name} is used by both ${taken.id} and ${model.id}`);
        this.byName.set(name, model);
      }
    }
  }

  /** The model for a slug or one of its aliases, retired or not. */
  find(name: string): CatalogModel | undefined {
    return this.byName.get(name);
  }

  /** Callable models: not retired. */
  active(): CatalogModel[] {
    return this.models.filter((m) => !m.retired);
  }

  /** `capability` filters are a logical AND; `family` keeps one family. */
  list(filters: { capabilities?: string[]; family?: string } = {}): CatalogModel[] {
    return this.active().filter((m) =>
      (filters.capabilities ?? []).every((c) => (m.capabilities as string[]).includes(c)) &&
      (filters.family === undefined || m.family === filters.family));
  }

  toPublic(model: CatalogModel): PublicModel {
    return {
      id: model.id,
      object: 'model',
      owned_by: model.ownedBy,
      family: model.family,
      capabilities: model.capabilities,
      context_window: model.contextWindow,
      max_output_tokens: model.maxOutputTokens,
      input_modalities: model.inputModalities,
      output_modalities: model.outputModalities,
      pricing_url: `${this.pricingUrl}#${encodeURIComponent(model.id)}`,
      created: model.created,
      protocols: model.protocols,
    };
  }
}
