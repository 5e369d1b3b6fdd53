/**
 * The AI SDK and LangChain on every protocol they speak and every family it allows: a plain call
 * (with an explicit output cap), streaming (deltas join to the text, usage reported), a tool round
 * trip (the application runs the tool; the second answer quotes its output), structured output (a
 * clean 400 `unsupported_feature` when the library sends a JSON schema to a model without
 * json_schema), and vision (an answer on a vision model, a clean 400 `unsupported_feature` otherwise).
 */
import { cellFailure, cellTitle, type CellName } from './support/cell';
import { libraryGroup, type KindOutcome } from './library/library-cells';
import { LIBRARY_KINDS, PROMPTS, type LibraryKind, type Observation } from './library/observation';
import { AI_SDK_VARIANTS, LANGCHAIN_VARIANTS } from './library/variants';
import { isNativePassThrough } from './support/native';
import { representatives, type ListedModel, type Protocol } from './support/suite';

/** A model without the capability must refuse cleanly: 400 `unsupported_feature` in the caller's envelope (INTERFACE). */
function cleanRefusal(seen: Observation, outcome: KindOutcome): string | undefined {
  if (seen.error === undefined) return `expected a clean 400 unsupported_feature, got an answer: ${JSON.stringify(seen)}`;
  if (seen.error.status !== 400) return `expected a clean 400, got ${seen.error.status ?? 'no status'}: ${seen.error.message}`;
  return (outcome.firstProblem ?? '').includes('unsupported_feature')
    ? undefined
    : `the 400 is not unsupported_feature: ${outcome.firstProblem ?? seen.error.message}`;
}

function judge(kind: LibraryKind, model: ListedModel, outcome: KindOutcome, seen: Observation): string | undefined {
  if (kind === 'vision' && !model.capabilities.includes('vision')) return cleanRefusal(seen, outcome);
  // Libraries that ask for structured output through a forced tool get the object from any tool-capable
  // model; those that send a JSON schema get the interface's refusal from a model without json_schema.
  if (kind === 'structured' && !model.capabilities.includes('json_schema') && seen.error !== undefined) return cleanRefusal(seen, outcome);
  if (seen.error !== undefined) return `threw ${seen.error.status ?? ''} ${seen.error.message}`;
  const usage = (seen.inputTokens ?? 0) > 0 && (seen.outputTokens ?? 0) > 0;
  switch (kind) {
    case 'plain':
      if (!(seen.text ?? '').includes(PROMPTS.plainToken)) return `the text does not carry the prompt back: ${JSON.stringify(seen.text)}`;
      return usage ? undefined : `usage not reported: input ${seen.inputTokens}, output ${seen.outputTokens}`;
    case 'streaming':
      if (!(seen.text ?? '').includes(PROMPTS.streamingToken))
        return `the text does not carry the prompt back: ${JSON.stringify(seen.text)}`;
      if ((seen.deltas ?? []).length < 2) return `expected several deltas, got ${JSON.stringify(seen.deltas)}`;
      if ((seen.deltas ?? []).join('') !== seen.text)
        return `the deltas ${JSON.stringify(seen.deltas)} do not join to the text ${JSON.stringify(seen.text)}`;
      return usage ? undefined : `usage not reported: input ${seen.inputTokens}, output ${seen.outputTokens}`;
    case 'tool':
      if (seen.toolCalls !== 1) return `expected one call of ${PROMPTS.toolName}, got ${seen.toolCalls}`;
      return (seen.text ?? '').includes(PROMPTS.toolOutput)
        ? undefined
        : `the second answer does not quote the tool output: ${JSON.stringify(seen.text)}`;
    case 'structured':
      return JSON.stringify(seen.object) === JSON.stringify({ city: 'example', temperature: 1 })
        ? undefined
        : `unexpected object ${JSON.stringify(seen.object)}`;
    case 'vision':
      return (seen.text ?? '').includes('[1 image: image/png]')
        ? undefined
        : `the answer does not acknowledge the image: ${JSON.stringify(seen.text)}`;
  }
}

const VARIANTS: Record<string, Protocol> = { ...AI_SDK_VARIANTS, ...LANGCHAIN_VARIANTS };

for (const [variant, protocol] of Object.entries(VARIANTS)) {
  describe(variant, () => {
    for (const model of representatives(protocol)) {
      for (const kind of LIBRARY_KINDS) {
        const cell: CellName = { client: variant, protocol, model: model.id, kind };
        test.concurrent(
          cellTitle(cell),
          async () => {
            const outcome = (await libraryGroup(variant, model.id))[kind];
            if (outcome.observation === undefined) throw cellFailure(cell, outcome.crash ?? 'no observation', outcome);
            const reason = judge(kind, model, outcome, outcome.observation);
            if (reason !== undefined) throw cellFailure(cell, reason, outcome);
            if (isNativePassThrough(protocol, model.id) && outcome.warnings.length > 0) {
              throw cellFailure(cell, `a native pass-through reported translation warnings: ${outcome.warnings.join('; ')}`, outcome);
            }
          },
          200_000,
        );
      }
    }
  });
}
