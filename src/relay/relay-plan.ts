/** Everything decided about one inference request before the first upstream attempt. */
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { AdmittedCall } from '../billing/run-paid-call';
import type { CatalogModel } from '../catalog/model';
import type { Protocol } from '../ir/protocol';
import type { IrRequest } from '../ir/request';
import type { IrResponse } from '../ir/response';
import type { TranslationWarning } from '../ir/warning';
import type { CodecContext, InboundStreamOptions } from '../protocols/codec';
import type { SessionAffinity } from '../routing/session-affinity';
import type { SessionIdentity } from '../routing/session-identity';
import type { Candidates } from '../upstream/upstream-directory';

export interface RelayPlan {
  protocol: Protocol;
  requestId: string;
  startedAt: number;
  key: AuthenticatedKey;
  model: CatalogModel;
  /** The client's body as parsed: forwarded (model swapped) on native pass-through. */
  rawBody: Record<string, unknown>;
  request: IrRequest;
  /** What the current attempt reports in `x-gateway-warnings` (set per attempt by `prepareUpstreamCall`). */
  warnings: TranslationWarning[];
  /**
   * What decoding and the catalog checks changed in the IR: true only of a translated attempt
   * (pass-through forwards the client's body intact). Taken from `warnings` at the first attempt.
   */
  requestWarnings?: readonly TranslationWarning[];
  stream: boolean;
  streamOptions: InboundStreamOptions;
  context: CodecContext;
  /** The admission, owned by the pipeline: the relay reads its headers and keeps its lease alive, never ends it. */
  admitted: AdmittedCall;
  /** Estimated input tokens, used to bill an abandoned stream whose upstream never reported usage. */
  inputEstimate: number;
  /** The client's request headers as received (routing reads a session header from them). */
  requestHeaders?: Record<string, string | string[] | undefined>;
  /** The client's headers a native upstream receives (the codec's choice; pass-through only). */
  passThroughHeaders?: Record<string, string>;
  /** The client's protocol headers an upstream of its protocol receives (the codec's `readClientHeaders`). */
  clientHeaders?: Record<string, string>;
  /** The client asked for `?beta=true` (the codec decides what it means upstream). */
  betaQuery: boolean;
  /** Pass-through is possible only when the client body can go upstream unchanged. */
  passThroughAllowed: boolean;
  /** Routing's lookups, started beside admission (absent: the relay starts them). */
  routing?: Promise<RoutingLookup>;
  /** A variant endpoint of the client's protocol (Responses: `/v1/responses/compact`). */
  endpoint?: 'compact';
  /**
   * A translated answer in a shape of its own instead of the protocol's response (remote compaction):
   * the whole body with its content type. Such a call is never streamed upstream nor stored.
   */
  encodeAnswer?: (ir: IrResponse) => { contentType: string; body: string };
}

/** The lookups routing needs: the group's candidates, and the account the session is bound to (a Redis read, in flight). */
export interface RoutingLookup {
  candidates: Candidates;
  session: SessionIdentity | undefined;
  /** Off (a no-op) when the group has no choice of account for the model. */
  affinity: SessionAffinity;
  boundId: Promise<number | undefined>;
}
