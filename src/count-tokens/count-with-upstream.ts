/**
 * Asks an upstream account of the key's group that speaks the caller's protocol to count the
 * request (the client's body, model swapped, as pass-through does). Undefined when no such account
 * exists or it is unavailable: the caller estimates instead. A refusal of the request itself (a 4xx
 * that is not the account's fault) is the caller's error, in the caller's envelope.
 */
import type { CatalogModel } from '../catalog/model';
import type { Protocol } from '../ir/protocol';
import { CODECS } from '../relay/codec-registry';
import type { RelayServices } from '../relay/relay-services';
import { upstreamHeaders } from '../relay/upstream-headers';
import { readUpstreamText } from '../upstream/upstream-client';

/** A protocol's token counting, as its codec describes it. */
export type CountTokensCodec = NonNullable<(typeof CODECS)[Protocol]['countTokens']>;

/** Statuses that say nothing about the request: the account's limits, outages or credential. */
function accountTrouble(status: number): boolean {
  return status === 401 || status === 403 || status === 404 || status === 408 || status === 429 || status >= 500;
}

export async function countWithUpstream(
  protocol: Protocol,
  counting: CountTokensCodec,
  body: Record<string, unknown>,
  model: CatalogModel,
  groupId: number,
  services: RelayServices,
  /** Protocol headers to forward (Messages `anthropic-beta`: the beta fields of the body need it). */
  extraHeaders: Record<string, string> = {},
): Promise<number | undefined> {
  const { accounts } = await services.upstreams.candidates(groupId, model.id, model.nativeProtocols);
  const account = accounts.find((a) => a.protocol === protocol);
  if (!account) return undefined;
  const upstreamModel = model.upstreamModel ?? model.id;
  let status: number;
  let text: string;
  try {
    const response = await services.upstreamClient.call({
      url: account.baseUrl + counting.upstreamPath(upstreamModel),
      headers: upstreamHeaders(protocol, account.credential, extraHeaders),
      body: JSON.stringify(counting.upstreamBody(body, upstreamModel)),
    });
    status = response.status;
    text = await readUpstreamText(response);
  } catch {
    return undefined;
  }
  if (status >= 400) {
    if (accountTrouble(status)) return undefined;
    const decoded = CODECS[protocol].upstream.decodeError(status, text, {});
    if (decoded.kind === 'upstream_error') return undefined;
    throw decoded;
  }
  try {
    return counting.readUpstreamCount(JSON.parse(text));
  } catch {
    return undefined;
  }
}
