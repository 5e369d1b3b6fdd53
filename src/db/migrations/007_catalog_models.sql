-- The model catalog as operator data (issue 16): one row per model. The definition (family,
-- capabilities, limits, modalities, protocols, prices, media options) is the CatalogModel shape as
-- JSON, validated by src/catalog/catalog-model-schema.ts on every write and read; slug, aliases and
-- retirement are columns so they can be queried and kept unique. Seeded from the default catalog
-- on first start (src/catalog/catalog-sync.ts).
CREATE TABLE catalog_models (
  id text PRIMARY KEY,
  -- Listing order: the order models were added (the default catalog's order for the seed).
  position bigint GENERATED ALWAYS AS IDENTITY,
  family_number integer NOT NULL CHECK (family_number BETWEEN 1 AND 8),
  aliases text[] NOT NULL DEFAULT '{}',
  retired boolean NOT NULL DEFAULT false,
  definition jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalog_models_aliases ON catalog_models USING gin (aliases);
