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
  private current: readonly CatalogModel[] = [];
  private bySlug = new Map<string, CatalogModel>();

  constructor(
    models: readonly CatalogModel[],
    private readonly pricingUrl = 'https://example.invalid/pricing',
  ) {
    this.replace(models);
  }

  get models(): readonly CatalogModel[] {
    return this.current;
  }

  /**
   * Swaps in a new model list (the catalog reloaded from PostgreSQL), in place so every holder of
   * this Catalog sees it. A model kept under the same slug keeps its object, updated field by field:
   * a request in flight holds that object and prices its usage when it ends, so a price change
   * applies to every request that ends after it.
   */
  replace(models: readonly CatalogModel[]): void {
    // Copies: the objects are updated in place later, and the caller's (e.g. DEFAULT_CATALOG's) must not be.
    const next = models.map((given) => {
      const model = structuredClone(given);
      const existing = this.bySlug.get(model.id);
      if (!existing || existing.id !== model.id) return model;
      for (const field of Object.keys(existing) as Array<keyof CatalogModel>) if (!(field in model)) delete existing[field];
      return Object.assign(existing, model);
    });
    // Slugs and aliases alike: one name, one model.
    const bySlug = new Map<string, CatalogModel>();
    for (const model of next) {
      for (const name of [model.id, ...(model.aliases ?? [])]) {
        const taken = bySlug.get(name);
        if (taken) throw new Error(`catalog name ${name} is used by both ${taken.id} and ${model.id}`);
        bySlug.set(name, model);
      }
    }
    this.current = next;
    this.bySlug = bySlug;
  }

  /** The model for a slug or an alias, retired or not. */
  find(slug: string): CatalogModel | undefined {
    return this.bySlug.get(slug);
  }

  /** Callable models: not retired. */
  active(): CatalogModel[] {
    return this.models.filter((m) => !m.retired);
  }

  /** `capability` filters are a logical AND; `family` keeps one family. */
  list(filters: { capabilities?: string[]; family?: string } = {}): CatalogModel[] {
    return this.active().filter(
      (m) =>
        (filters.capabilities ?? []).every((c) => (m.capabilities as string[]).includes(c)) &&
        (filters.family === undefined || m.family === filters.family),
    );
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
