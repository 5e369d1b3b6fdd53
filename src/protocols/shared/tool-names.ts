/**
 * Tool names differ in what each protocol allows (OpenAI `^[a-zA-Z0-9_-]{1,64}$`, Generate-Content
 * starts with a letter or `_`, `[A-Za-z0-9_.:-]`, max 64). When a name must change we use the
 * intersection `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` and keep a reverse map for the answer.
 */
const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export function isSafeToolName(name: string): boolean {
  return SAFE_NAME.test(name);
}

/**
 * Returns the safe name for `name` and registers it in `reverse` (safe → original). Safe names map
 * to themselves; a name that had to change never takes a safe name already held by another tool.
 */
export function sanitizeToolName(name: string, reverse: Record<string, string>): string {
  if (isSafeToolName(name) && (reverse[name] === undefined || reverse[name] === name)) {
    reverse[name] = name;
    return name;
  }
  let safe = (name === '' ? 'unnamed_tool' : name).replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/^[A-Za-z_]/.test(safe)) safe = `_${safe}`;
  safe = safe.slice(0, 64);
  // Two different originals must not collide on one safe name.
  let candidate = safe;
  for (let n = 2; reverse[candidate] !== undefined && reverse[candidate] !== name; n++) {
    const suffix = `_${n}`;
    candidate = safe.slice(0, 64 - suffix.length) + suffix;
  }
  reverse[candidate] = name;
  return candidate;
}

export function restoreToolName(name: string, reverse: Record<string, string>): string {
  return reverse[name] ?? name;
}
