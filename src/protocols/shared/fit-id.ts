/**
 * Ids that carry an opaque value back through a client (a Gemini thought signature inside a tool
 * call id) must fit the client protocol's limit: OpenAI caps Responses `call_id` at 64 characters
 * and real clients replay Chat tool-call ids to OpenAI-shaped APIs too. A carrier over the limit is
 * kept in the gateway's own store and replaced by its short id.
 */
import type { CodecContext } from '../codec';

export const MAX_CLIENT_ID_LENGTH = 64;

export function fitId(carrier: string, context: CodecContext): string {
  if (carrier.length <= MAX_CLIENT_ID_LENGTH || context.opaqueIds === undefined) return carrier;
  return context.opaqueIds.keep(carrier);
}

/** The carrier a short id stands for, else the id itself (a store that lost it: the value is gone). */
export function expandId(id: string, context: CodecContext): string {
  return context.opaqueIds?.find(id) ?? id;
}
