import type { Protocol } from '../ir/protocol';

export type Capability =
  | 'text'
  | 'vision'
  | 'audio'
  | 'video'
  | 'tool_use'
  | 'streaming'
  | 'cache_control'
  | 'thinking'
  | 'json_schema'
  | 'logprobs'
  | 'image_gen'
  | 'video_gen';

export type Modality = 'text' | 'image' | 'audio' | 'video';

export type ModelKind = 'chat' | 'image' | 'video';

/**
 * Prices in integer credits (1 USD = 1,000,000 credits). Token prices are per million tokens,
 * so `3_000_000` is 3 USD per million tokens = 3 credits per token.
 */
export interface ModelPrices {
  inputPerMillion?: number;
  outputPerMillion?: number;
  cacheReadPerMillion?: number;
  cacheWritePerMillion?: number;
  /** Image models: credits per image by `size` (`1024x1024`) and quality (`standard`/`high`); `*` matches any. */
  perImage?: Record<string, number>;
  /** Video models: credits per second by resolution (`720p`). */
  perVideoSecond?: Record<string, number>;
}

export interface CatalogModel {
  id: string;
  /**
   * Other names that resolve to this model everywhere (dated snapshots such as
   * `claude-sonnet-4-5-20250929`, the names clients ask for by default). Never listed.
   */
  aliases?: string[];
  /** Family number 1–8 of the interface's family table. */
  familyNumber: number;
  /** Vendor-derived family name used by the `family` filter. */
  family: string;
  ownedBy: string;
  kind: ModelKind;
  capabilities: Capability[];
  contextWindow: number;
  maxOutputTokens: number;
  inputModalities: Modality[];
  outputModalities: Modality[];
  /** Unix seconds when the model entered the catalog. */
  created: number;
  /** Protocols the model's provider speaks natively, in order of preference. */
  nativeProtocols: Protocol[];
  /** Inbound protocol shapes the model may be called with (the family table). */
  protocols: Protocol[];
  /** Name the upstream expects, when it differs from the slug. */
  upstreamModel?: string;
  prices: ModelPrices;
  retired?: boolean;
  /** Reasoning models that accept only this temperature (others are dropped with a warning). */
  fixedTemperature?: number;
  /** Video models. */
  video?: { maxDurationSeconds: number; resolutions: string[]; aspectRatios: string[]; imageInput: boolean };
  /** Image models: sizes accepted. */
  image?: { qualities: string[]; editable: boolean };
}
