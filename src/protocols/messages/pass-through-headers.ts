/**
 * What a native Messages upstream receives of the client's headers: `anthropic-version` as sent
 * (`2023-06-01` for a client that sent only the interface's `messages-version`), every other
 * `anthropic-*` header (`anthropic-beta`, `anthropic-workspace-id`, …) and Claude Code's
 * `x-claude-code-*` headers. Credentials and hop-by-hop headers never.
 */
import { forwardedHeaders } from '../shared/forwarded-headers';

type HeaderBag = Record<string, string | string[] | undefined>;

export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export function messagesPassThroughHeaders(headers: HeaderBag): Record<string, string> {
  const forwarded = forwardedHeaders(headers, (name) => name.startsWith('anthropic-') || name.startsWith('x-claude-code-'));
  forwarded['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  if (forwarded['anthropic-beta'] === undefined && typeof headers['messages-beta'] === 'string')
    forwarded['anthropic-beta'] = headers['messages-beta'];
  return forwarded;
}
