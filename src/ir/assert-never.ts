/** Exhaustiveness guard: a new union member fails to compile until every switch handles it. */
export function assertNever(value: never, context = 'value'): never {
  throw new Error(`unhandled ${context}: ${JSON.stringify(value)}`);
}
