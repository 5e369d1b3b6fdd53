/**
 * One minimal model call ("ping", at most 16 output tokens) to one upstream account, encoded by the
 * codec of the account's protocol and sent through the upstream client: the user's dial test and the
 * operator's upstream test button. Never billed (no admission, no usage event). The outcome names
 * the HTTP status, the latency and the gateway's error class; never the account's credential.
 */
import type { CatalogModel } from '../catalog/model';
import { scrubSecrets } from '../errors/scrub-secrets';
import type { Protocol } from '../ir/protocol';
import type { CodecContext } from '../protocols/codec';
import type { UpstreamAccount } from '../upstream/upstream-account';
import { readUpstreamText, toUpstreamError, type UpstreamClient } from '../upstream/upstream-client';
import { CODECS } from './codec-registry';
import { prepareUpstreamCall, type UpstreamCallPlan } from './upstream-request';

export interface DialOutcome {
  ok: boolean;
  /** The upstream's HTTP status; null when no answer came (refused, timed out). */
  status: number | null;
  latencyMs: number;
  /** The gateway's error kind (`rate_limit`, `upstream_error`, `timeout`, …); null on success. */
  errorClass: string | null;
  detail: string;
  /** What was thrown when no answer came, for a caller that words it itself (the upstream probe); never presented as is. */
  transportError?: unknown;
}

const MAX_OUTPUT_TOKENS = 16;

/** The smallest request: one user turn, no tools, 16 output tokens, not streamed. */
export function pingPlan(model: CatalogModel, protocol: Protocol, context: CodecContext): UpstreamCallPlan {
  return {
    protocol,
    model,
    rawBody: {},
    warnings: [],
    stream: false,
    streamOptions: { model: model.id },
    context,
    inputEstimate: 0,
    betaQuery: false,
    passThroughAllowed: false,
    request: {
      model: model.id,
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'ping' }] }],
      tools: [],
      builtinTools: [],
      sampling: { maxOutputTokens: MAX_OUTPUT_TOKENS },
      stream: false,
    },
  };
}

/** The outcome's detail is scrubbed of upstream credentials: it is shown to users and operators. */
export async function dialUpstream(client: UpstreamClient, plan: UpstreamCallPlan, account: UpstreamAccount): Promise<DialOutcome> {
  const outcome = await dial(client, plan, account);
  return { ...outcome, detail: scrubSecrets(outcome.detail) };
}

async function dial(client: UpstreamClient, plan: UpstreamCallPlan, account: UpstreamAccount): Promise<DialOutcome> {
  const call = prepareUpstreamCall(plan, account);
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  let status: number | null = null;
  try {
    const response = await client.call({ url: call.url, headers: call.headers, body: call.body });
    status = response.status;
    const text = await readUpstreamText(response);
    const latencyMs = elapsed();
    if (response.status >= 400) {
      const error = CODECS[account.protocol].upstream.decodeError(response.status, text, response.headers);
      return { ok: false, status, latencyMs, errorClass: error.kind, detail: error.message };
    }
    CODECS[account.protocol].upstream.decodeResponse(JSON.parse(text), call.decodeContext);
    return { ok: true, status, latencyMs, errorClass: null, detail: 'upstream answered' };
  } catch (error) {
    const latencyMs = elapsed();
    // An answer that did not decode is the upstream's fault; a thrown transport error says which kind.
    if (status !== null)
      return {
        ok: false,
        status,
        latencyMs,
        errorClass: 'upstream_error',
        detail: `the answer did not decode: ${(error as Error).message}`,
      };
    const failure = toUpstreamError(error);
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return {
      ok: false,
      status,
      latencyMs,
      errorClass: failure.kind,
      detail: code ? `${failure.message} (${code})` : failure.message,
      transportError: error,
    };
  }
}
