/**
 * Remote compaction (issue 25) on families that have no compact endpoint: `POST /v1/responses/compact`
 * and a `compaction_trigger` input item of `/v1/responses`. The gateway asks the target model for a
 * summary of the conversation and answers with exactly one `compaction` item carrying it sealed (see
 * compaction-carrier); a gateway item that comes back in a later `input` is opened into the summary.
 */
import type { IrRequest } from '../../ir/request';
import type { IrResponse } from '../../ir/response';
import type { CompactionAnswer, CompactionAnswerOptions, InboundCompaction } from '../codec';
import { isRecord } from '../shared/read-json';
import { toResponsesUsage } from './convert-usage';
import { encodeResponsesResponse } from './encode-response';
import { deriveCompactionKey, isGatewayCompaction, openCompaction, sealCompaction } from './compaction-carrier';

export type { CompactionAnswer, CompactionAnswerOptions };

export const COMPACTION_ITEM = 'compaction';
export const COMPACTION_TRIGGER_ITEM = 'compaction_trigger';

const SUMMARY_PROMPT = [
  'Compact this conversation so the work can continue in a fresh context.',
  "Write a handoff summary: the user's goals and requests, decisions made, the current state of the work",
  '(files, commands, results, errors), and what remains to be done. Answer with the summary only.',
].join(' ');

const SUMMARY_HEADING = 'Summary of the earlier conversation (compacted):';

/** Whether a `/v1/responses` body asks for compaction with a `compaction_trigger` input item. */
export function hasCompactionTrigger(body: Record<string, unknown>): boolean {
  return Array.isArray(body.input) && body.input.some((item) => isRecord(item) && item.type === COMPACTION_TRIGGER_ITEM);
}

/**
 * Replaces each of the gateway's own compaction items in the decoded input by the summary it carries
 * (a provider's own compaction item stays as it is). Returns how many were opened.
 */
export function openCompactionItems(request: IrRequest, key: Buffer, accountId: number): number {
  let opened = 0;
  for (const turn of request.turns) {
    turn.parts = turn.parts.map((part) => {
      if (part.type !== 'native' || part.protocol !== 'responses' || part.value.type !== COMPACTION_ITEM) return part;
      if (!isGatewayCompaction(part.value.encrypted_content)) return part;
      opened += 1;
      const summary = openCompaction(key, accountId, part.value.encrypted_content, 'input');
      return { type: 'text', text: `${SUMMARY_HEADING}\n\n${summary}` };
    });
  }
  return opened;
}

/** The request that asks the target model for the summary: the conversation, then the ask; no tool use. */
export function summaryRequest(request: IrRequest): IrRequest {
  const { responseFormat: _format, previousResponseId: _previous, ...rest } = request;
  const turns = [...request.turns];
  const last = turns[turns.length - 1];
  if (last?.role === 'user') turns[turns.length - 1] = { role: 'user', parts: [...last.parts, { type: 'text', text: SUMMARY_PROMPT }] };
  else turns.push({ role: 'user', parts: [{ type: 'text', text: SUMMARY_PROMPT }] });
  return { ...rest, turns, stream: false, store: false, ...(request.tools.length > 0 ? { toolChoice: { type: 'none' } } : {}) };
}

function summaryText(ir: IrResponse): string {
  return ir.parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}

function sseFrame(event: Record<string, unknown>): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The answer with its one compaction item, in the shape the endpoint (and the stream flag) calls for. */
export function encodeCompactionAnswer(ir: IrResponse, options: CompactionAnswerOptions): CompactionAnswer {
  const { context, streamOptions } = options;
  const item = {
    type: COMPACTION_ITEM,
    id: context.newId('cmp_'),
    encrypted_content: sealCompaction(options.key, options.accountId, summaryText(ir)),
  };
  if (options.endpoint === 'compact') {
    const body = {
      id: streamOptions.responseId ?? context.newId('resp_'),
      object: 'response.compaction',
      created_at: context.now(),
      output: [item],
      usage: toResponsesUsage(ir.usage),
    };
    return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
  }
  const response = encodeResponsesResponse(
    { ...ir, finish: { unified: 'stop', raw: 'completed' }, parts: [{ type: 'native', protocol: 'responses', value: item }] },
    streamOptions,
    context,
  );
  if (!options.stream) return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(response) };
  const inProgress = { ...response, status: 'in_progress', output: [], usage: null };
  const events = [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: inProgress },
    { type: 'response.output_item.added', output_index: 0, item },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response },
  ];
  return { contentType: 'text/event-stream', body: events.map((event, index) => sseFrame({ ...event, sequence_number: index })).join('') };
}

/** Remote compaction as the codec offers it to the relay. */
export const responsesCompaction: InboundCompaction = {
  deriveKey: deriveCompactionKey,
  openItems: openCompactionItems,
  hasTrigger: hasCompactionTrigger,
  summaryRequest,
  encodeAnswer: encodeCompactionAnswer,
};
