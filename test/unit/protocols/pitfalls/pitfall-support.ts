/**
 * Helpers for the pitfall tests: a raw client body sent through the codecs to the strict simulator
 * (the simulator rejects what the real API rejects, so "accepted" is evidence the pitfall is
 * avoided), and a conversation through an official SDK.
 */
import type { Simulator } from '../../../../scripts/provider-sim/server';
import type { Protocol } from '../../../../src/ir/protocol';
import { pipelineFetch, type PipelineOptions, type PipelineTrace } from '../../../support/codec-harness';
import { seededRandom } from '../../../support/sdk-responses';
import { createConversation, type ClientConversation } from '../matrix/client-conversation';

const CLIENT_PATHS: Record<Protocol, (stream: boolean) => string> = {
  messages: () => '/v1/messages',
  chat: () => '/v1/chat/completions',
  responses: () => '/v1/responses',
  'generate-content': (stream) =>
    stream ? '/v1beta/models/client-model:streamGenerateContent?alt=sse' : '/v1beta/models/client-model:generateContent',
};

export interface RawResult {
  trace: PipelineTrace;
  status: number;
  /** The client's answer: the JSON body, or the stream text. */
  text: string;
}

/** Sends a client wire body through inbound decode → upstream encode → simulator → back. */
export async function sendRaw(
  sim: Simulator,
  inbound: Protocol,
  upstream: Protocol,
  body: Record<string, unknown>,
  options: Partial<PipelineOptions> & { stream?: boolean } = {},
): Promise<RawResult> {
  const traces: PipelineTrace[] = [];
  const fetch = pipelineFetch({ inbound, upstream, sim, traces, random: seededRandom(9), ...options });
  const stream = options.stream ?? body.stream === true;
  const response = await fetch(`http://gateway.test${CLIENT_PATHS[inbound](stream)}`, { method: 'POST', body: JSON.stringify(body) });
  return { trace: traces[0]!, status: response.status, text: await response.text() };
}

/** An SDK conversation whose requests go through the codecs to the simulator; traces are collected. */
export function conversation(
  sim: Simulator,
  inbound: Protocol,
  upstream: Protocol,
  stream: boolean,
  options: Partial<PipelineOptions> = {},
): { client: ClientConversation; traces: PipelineTrace[] } {
  const traces: PipelineTrace[] = [];
  const fetch = pipelineFetch({ inbound, upstream, sim, traces, random: seededRandom(5), ...options });
  return { client: createConversation(inbound, fetch, stream), traces };
}

/** The upstream body of a trace (fails the test when the request never got that far). */
export function upstreamBody(trace: PipelineTrace | undefined): Record<string, unknown> {
  if (trace?.encoded === undefined) throw new Error(`no upstream request: ${trace?.failure?.message ?? 'no trace'}`);
  return trace.encoded.body;
}

/** A test failure message that shows what the simulator objected to. */
export function accepted(trace: PipelineTrace | undefined): { failure?: string; simStatus?: number; simError?: string } {
  return {
    failure: trace?.failure?.message,
    simStatus: trace?.simStatus,
    simError: trace?.simStatus !== undefined && trace.simStatus >= 400 ? trace.simText : undefined,
  };
}

export const ACCEPTED = { failure: undefined, simStatus: 200, simError: undefined };
