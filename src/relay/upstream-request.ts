/**
 * Builds the upstream call for one account: native pass-through (client body forwarded with the
 * model swapped) when the account speaks the client's protocol, else the IR encoded by the
 * account protocol's codec.
 */
import type { CatalogModel } from '../catalog/model';
import type { UpstreamDecodeContext } from '../protocols/codec';
import type { UpstreamAccount } from '../upstream/upstream-account';
import { upstreamUrl } from '../upstream/provider-presets';
import { CODECS } from './codec-registry';
import type { RelayPlan } from './relay-plan';
import { upstreamHeaders } from './upstream-headers';

export interface PreparedUpstreamCall {
  account: UpstreamAccount;
  passThrough: boolean;
  url: string;
  headers: Record<string, string>;
  body: string;
  decodeContext: UpstreamDecodeContext;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function upstreamModelName(model: CatalogModel): string {
  return model.upstreamModel ?? model.id;
}

/** What building an upstream call reads of a plan (the dial tests build one with no key or admission). */
export type UpstreamCallPlan = Omit<RelayPlan, 'key' | 'admitted' | 'requestId' | 'startedAt'>;

export function prepareUpstreamCall(plan: UpstreamCallPlan, account: UpstreamAccount): PreparedUpstreamCall {
  const upstreamModel = upstreamModelName(plan.model);
  // The client's protocol headers (Messages `anthropic-beta`) go to an upstream of its protocol only.
  const extra: Readonly<Record<string, string>> = (account.protocol === plan.protocol && plan.clientHeaders) || NO_HEADERS;
  plan.requestWarnings ??= [...plan.warnings];
  if (plan.passThroughAllowed && account.protocol === plan.protocol) {
    // The body goes intact: nothing of the translation warnings happened to it.
    plan.warnings = [];
    const codec = CODECS[plan.protocol];
    const body: Record<string, unknown> = { ...plan.rawBody };
    codec.fixPassThroughBody(body, upstreamModel, plan.model.family, plan.stream);
    return {
      account,
      passThrough: true,
      url: upstreamUrl(account, codec.passThroughPath(upstreamModel, plan), upstreamModel),
      headers: upstreamHeaders(account.protocol, account.credential, { ...plan.passThroughHeaders, ...extra }, account.provider),
      body: JSON.stringify(body),
      decodeContext: { ...plan.context, toolNames: {} },
    };
  }
  plan.streamOptions.inputTokensEstimate ??= plan.inputEstimate;
  const codec = CODECS[account.protocol];
  const encoded = codec.upstream.encodeRequest(
    { ...plan.request, stream: plan.stream },
    {
      upstreamModel,
      maxOutputTokens: plan.model.maxOutputTokens,
      nativeJsonSchema: codec.upstream.nativeJsonSchema && (plan.model.capabilities as string[]).includes('json_schema'),
    },
    plan.context,
  );
  plan.warnings = [...plan.requestWarnings, ...encoded.warnings];
  return {
    account,
    passThrough: false,
    url: upstreamUrl(account, encoded.path, upstreamModel),
    headers: upstreamHeaders(account.protocol, account.credential, { ...extra, ...encoded.headers }, account.provider),
    body: JSON.stringify(encoded.body),
    decodeContext: { ...plan.context, toolNames: encoded.toolNames, jsonToolName: encoded.jsonToolName },
  };
}
