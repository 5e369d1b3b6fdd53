/**
 * The inference routes, from the codecs: each protocol names its routes (`InboundCodec.routes`), and
 * this table, built once, finds a request's protocol with one map lookup (fixed paths, matched as
 * express did: case-insensitive, one optional trailing slash), else the patterns in order.
 */
import type { Protocol } from '../ir/protocol';
import type { Codec } from '../protocols/codec';
import { CODECS } from './codec-registry';

export interface ServedRoute {
  readonly protocol: Protocol;
  readonly codec: Codec;
  /** A variant endpoint of the protocol (Responses' compact endpoint). */
  readonly endpoint?: 'compact';
}

const FIXED_ROUTES = new Map<string, ServedRoute>();
const PATTERN_ROUTES: { pattern: RegExp; route: ServedRoute }[] = [];

for (const codec of Object.values(CODECS)) {
  for (const route of codec.inbound.routes) {
    if ('pattern' in route) {
      PATTERN_ROUTES.push({ pattern: route.pattern, route: { protocol: codec.protocol, codec } });
    } else {
      FIXED_ROUTES.set(route.path, { protocol: codec.protocol, codec, ...(route.endpoint ? { endpoint: route.endpoint } : {}) });
    }
  }
}

export function routeOf(path: string): ServedRoute | undefined {
  const lower = path.toLowerCase();
  const fixed = FIXED_ROUTES.get(lower.endsWith('/') ? lower.slice(0, -1) : lower);
  if (fixed) return fixed;
  for (let index = 0; index < PATTERN_ROUTES.length; index += 1) {
    if (PATTERN_ROUTES[index].pattern.test(path)) return PATTERN_ROUTES[index].route;
  }
  return undefined;
}

/** A Responses WebSocket message is served as a `POST /v1/responses` of its body. */
export const WEBSOCKET_ROUTE: ServedRoute = routeOf('/v1/responses') as ServedRoute;
