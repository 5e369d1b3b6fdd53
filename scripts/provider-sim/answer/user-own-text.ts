/**
 * The text a user typed, without what a client injects into the same turn: Claude Code's
 * `<system-reminder>` blocks (which name its `Agent` and `Skill` tools), Codex's
 * `<environment_context>` and `<user_instructions>`. Tool choices and echoes are decided from this
 * text only, so a client's own context can never make the simulator call a tool.
 */
import type { SimTurn } from './conversation';

const INJECTED = /<(system-reminder|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;

export function userOwnText(turn: SimTurn | undefined): string {
  return (turn?.texts ?? [])
    .flatMap((text) => {
      // A text without injected context stays exactly as typed (`repeat:N:` keeps its spaces).
      const own = text.replace(INJECTED, '');
      if (own === text) return [text];
      return own.trim() === '' ? [] : [own.trim()];
    })
    .join('\n');
}
