/** What a zod failure names: the field's path as a client writes it, and the issue that names it. */
import type { z } from 'zod';

/** `messages[2].content`, `ip_whitelist[2]`: numbers as indexes, names joined with dots. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text ? `.${String(part)}` : String(part);
  }
  return text;
}

export interface FoundIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * Inside a union (string-or-array content, an image given by URL or data), a branch that got deeper
 * than the union itself names the real field (`content[0].text`, `image.data`); when none did, the
 * union's own message stands, which a schema may word.
 */
export function deepestIssue(issue: z.core.$ZodIssue): FoundIssue {
  let best: FoundIssue = { path: [...issue.path], message: issue.message };
  if (issue.code !== 'invalid_union') return best;
  for (const inner of issue.errors.flat()) {
    const found = deepestIssue(inner);
    if (found.path.length > 0 && issue.path.length + found.path.length > best.path.length)
      best = { path: [...issue.path, ...found.path], message: found.message };
  }
  return best;
}
