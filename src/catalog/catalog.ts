/** In-memory catalog lookups: by slug, listing with filters, the public model shape. */
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
  private readonly bySlug: Map<string, CatalogModel>;

  constructor(readonly models: readonly CatalogModel[], private readonly pricingUrl = 'https://example.invalid/pricing') {
    this.bySlug = new Map(models.map((m) => [m.id, m]));
  }

  /** The model for a slug, retired or not. */
  find(slug: string): CatalogModel | undefined {
    return this.bySlug.get(slug);
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
