/**
 * Builds the upstream call for one account: native pass-through (client body forwarded with the
 * model swapped) when the account speaks the client's protocol, else the IR encoded by the
 * account protocol's codec.
 */
import type { CatalogModel } from '../catalog/model';
import type { Protocol } from '../ir/protocol';
import { chatMaxTokensField } from '../protocols/chat/chat-max-tokens-field';
import { stripChatExtensions } from '../protocols/chat/chat-pass-through-body';
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

function upstreamModelName(model: CatalogModel): string {
  return model.upstreamModel ?? model.id;
}

function passThroughPath(protocol: Protocol, model: string, stream: boolean, betaQuery: boolean, compact: boolean): string {
  switch (protocol) {
    case 'messages': return betaQuery ? '/v1/messages?beta=true' : '/v1/messages';
    case 'chat': return '/v1/chat/completions';
    case 'responses': return compact ? '/v1/responses/compact' : '/v1/responses';
    case 'generate-content':
      return `/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
  }
}

/**
 * The interface offers Chat `max_tokens` on every model; OpenAI's reasoning models refuse it
 * ("Use 'max_completion_tokens' instead"), so a pass-through body carries it under the field the
 * target takes (besides the model name and the usage request, the only change to a pass-through body).
 */
function renameChatMaxTokens(body: Record<string, unknown>, upstreamModel: string): void {
  if (body.max_tokens === undefined || body.max_tokens === null || body.max_completion_tokens !== undefined) return;
  if (chatMaxTokensField(upstreamModel) !== 'max_completion_tokens') return;
  body.max_completion_tokens = body.max_tokens;
  delete body.max_tokens;
}

/** What building an upstream call reads of a plan (the dial tests build one with no key or admission). */
export type UpstreamCallPlan = Omit<RelayPlan, 'key' | 'admitted' | 'requestId' | 'startedAt'>;

export function prepareUpstreamCall(plan: UpstreamCallPlan, account: UpstreamAccount): PreparedUpstreamCall {
  const upstreamModel = upstreamModelName(plan.model);
  const extra: Record<string, string> = {};
  if (account.protocol === 'messages' && plan.betaHeader) extra['anthropic-beta'] = plan.betaHeader;
  plan.requestWarnings ??= [...plan.warnings];
  if (plan.passThroughAllowed && account.protocol === plan.protocol) {
    // The body goes intact: nothing of the translation warnings happened to it.
    plan.warnings = [];
    const body: Record<string, unknown> = { ...plan.rawBody };
    if (plan.protocol !== 'generate-content') body.model = upstreamModel;
    if (plan.protocol === 'chat') renameChatMaxTokens(body, upstreamModel);
    if (plan.protocol === 'chat') stripChatExtensions(body, plan.model.family);
    if (plan.protocol === 'chat' && plan.stream) {
      // Usage is needed to bill; the usage chunk is filtered out again if the client did not ask for it.
      body.stream_options = { ...(typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {}), include_usage: true };
    }
    return {
      account,
      passThrough: true,
      url: upstreamUrl(account, passThroughPath(plan.protocol, upstreamModel, plan.stream, plan.betaQuery, plan.endpoint === 'compact'), upstreamModel),
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
      nativeJsonSchema: account.protocol !== 'messages' && (plan.model.capabilities as string[]).includes('json_schema'),
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
