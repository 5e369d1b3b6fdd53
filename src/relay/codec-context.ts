/** The only source of ids and time the codecs see. */
import type { Clock } from '../dependencies';
import { randomBase62 } from '../http/random-pool';
import type { CodecContext, OpaqueIdStore } from '../protocols/codec';

export function createCodecContext(clock: Clock, opaqueIds?: OpaqueIdStore): CodecContext {
  return {
    newId: (prefix) => `${prefix}${randomBase62(24)}`,
    now: () => Math.floor(clock.now() / 1000),
    ...(opaqueIds ? { opaqueIds } : {}),
  };
}
