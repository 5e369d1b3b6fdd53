/**
 * Child-process entry of the library cells (run with `node --import tsx`): reads one cell group from
 * argv, runs its kinds one after another, each against its own recorder URL, and prints one JSON line
 * of observations. A thrown error is an observation too; the test file decides whether it was due.
 */
import { runAiSdkCell } from './ai-sdk';
import { runLangChainCell } from './langchain';
import { errorObservation, LIBRARY_KINDS, type CellGroupSpec, type LibraryKind, type Observation } from './observation';
import { AI_SDK_VARIANTS, LANGCHAIN_VARIANTS, type AiSdkVariant, type LangChainVariant } from './variants';

async function runKind(spec: CellGroupSpec, kind: LibraryKind): Promise<Observation> {
  const url = spec.urls[kind];
  try {
    if (spec.variant in AI_SDK_VARIANTS) return await runAiSdkCell(spec.variant as AiSdkVariant, kind, url, spec.key, spec.model);
    if (spec.variant in LANGCHAIN_VARIANTS)
      return await runLangChainCell(spec.variant as LangChainVariant, kind, url, spec.key, spec.model);
    throw new Error(`unknown library variant ${spec.variant}`);
  } catch (error) {
    return errorObservation(error);
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as CellGroupSpec;
  const results: Partial<Record<LibraryKind, Observation>> = {};
  for (const kind of LIBRARY_KINDS) results[kind] = await runKind(spec, kind);
  process.stdout.write(`\nRESULTS ${JSON.stringify(results)}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
