/**
 * The AI SDK and LangChain on every protocol they speak and every family it allows: a plain call,
 * streaming (deltas join to the text, usage reported), a tool round trip (the application runs the
 * tool; the second answer quotes its output), structured output, and vision (an answer on a vision
 * model, a clean 400 otherwise).
 */
import { cellTitle, type CellName } from './support/cell';
import { libraryGroup, type KindOutcome } from './library/library-cells';
import { LIBRARY_KINDS, PROMPTS, type LibraryKind, type Observation } from './library/observation';
import { AI_SDK_VARIANTS, LANGCHAIN_VARIANTS } from './library/variants';
import { representatives, type ListedModel, type Protocol } from './support/suite';

function judge(kind: LibraryKind, model: ListedModel, seen: Observation): string | undefined {
  const vision = model.capabilities.includes('vision');
  if (kind === 'vision' && !vision) {
    if (seen.error === undefined) return `a model without vision answered an image instead of a 400: ${JSON.stringify(seen)}`;
    return seen.error.status === 400 ? undefined : `expected a clean 400, got ${seen.error.status ?? 'no status'}: ${seen.error.message}`;
  }
  if (seen.error !== undefined) return `threw ${seen.error.status ?? ''} ${seen.error.message}`;
  const usage = (seen.inputTokens ?? 0) > 0 && (seen.outputTokens ?? 0) > 0;
  switch (kind) {
    case 'plain':
      if (!(seen.text ?? '').includes(PROMPTS.plainToken)) return `the text does not carry the prompt back: ${JSON.stringify(seen.text)}`;
      return usage ? undefined : `usage not reported: input ${seen.inputTokens}, output ${seen.outputTokens}`;
    case 'streaming':
      if (!(seen.text ?? '').includes(PROMPTS.streamingToken)) return `the text does not carry the prompt back: ${JSON.stringify(seen.text)}`;
      if ((seen.deltas ?? []).length < 2) return `expected several deltas, got ${JSON.stringify(seen.deltas)}`;
      if ((seen.deltas ?? []).join('') !== seen.text) return `the deltas ${JSON.stringify(seen.deltas)} do not join to the text ${JSON.stringify(seen.text)}`;
      return usage ? undefined : `usage not reported: input ${seen.inputTokens}, output ${seen.outputTokens}`;
    case 'tool':
      if (seen.toolCalls !== 1) return `expected one call of ${PROMPTS.toolName}, got ${seen.toolCalls}`;
      return (seen.text ?? '').includes(PROMPTS.toolOutput) ? undefined : `the second answer does not quote the tool output: ${JSON.stringify(seen.text)}`;
    case 'structured':
      return JSON.stringify(seen.object) === JSON.stringify({ city: 'example', temperature: 1 }) ? undefined : `unexpected object ${JSON.stringify(seen.object)}`;
    case 'vision':
      return (seen.text ?? '').includes('[1 image: image/png]') ? undefined : `the answer does not acknowledge the image: ${JSON.stringify(seen.text)}`;
  }
}

function failure(cell: CellName, outcome: KindOutcome, reason: string): Error {
  return new Error(`${cellTitle(cell)} failed: ${reason}\n  first bad answer: ${outcome.firstProblem ?? 'every answer was 2xx and every event well-formed'}\n  requests: ${outcome.requests}`);
}

const VARIANTS: Record<string, Protocol> = { ...AI_SDK_VARIANTS, ...LANGCHAIN_VARIANTS };

for (const [variant, protocol] of Object.entries(VARIANTS)) {
  describe(variant, () => {
    for (const model of representatives(protocol)) {
      for (const kind of LIBRARY_KINDS) {
        const cell: CellName = { client: variant, protocol, model: model.id, kind };
        test.concurrent(cellTitle(cell), async () => {
          const outcome = (await libraryGroup(variant, model.id))[kind];
          if (outcome.observation === undefined) throw failure(cell, outcome, outcome.crash ?? 'no observation');
          const reason = judge(kind, model, outcome.observation);
          if (reason !== undefined) throw failure(cell, outcome, reason);
        }, 200_000);
      }
    }
  });
}
