/**
 * Multi-turn Messages conversations run concurrently through the gateway, measuring how much of
 * what each turn repeats is billed as a prompt-cache read. Each turn marks the system prompt and the
 * last two user messages with `cache_control` (as Claude Code does), so a turn can read everything
 * the previous turn wrote, provided it lands on the same upstream account (providers cache per
 * account). Used by the session-affinity test and bench scenario.
 */
export interface ConversationOptions {
  baseUrl: string;
  key: string;
  model: string;
  conversations: number;
  turns: number;
  /** Makes the prompts unique to this run (caches outlive a run in a long-lived simulator). */
  tag: string;
  /** Conversations with an index below this send `metadata.user_id`; the others rely on the prefix hash. */
  withUserId?: number;
}

export interface ConversationFigures {
  requests: number;
  errors: number;
  /** Σ over turns ≥ 2 of what the previous turn of the conversation cached (read + written). */
  cacheableTokens: number;
  /** Σ over turns ≥ 2 of `cache_read_input_tokens`. */
  cacheReadTokens: number;
  /** cacheReadTokens / cacheableTokens. */
  cachedShare: number;
}

interface MessagesUsage {
  input_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}
interface MessagesAnswer {
  content?: Array<{ type: string; text?: string }>;
  usage?: MessagesUsage;
}

const EPHEMERAL = { type: 'ephemeral' } as const;
// About 1,500 tokens of instructions: the part of every request that caching is for.
const FILLER = 'Follow the house style: short sentences, concrete nouns, no filler words. '.repeat(100);

function userMessage(text: string, marked: boolean) {
  return { role: 'user', content: [{ type: 'text', text, ...(marked ? { cache_control: EPHEMERAL } : {}) }] };
}

async function runConversation(options: ConversationOptions, index: number, figures: ConversationFigures): Promise<void> {
  const history: Array<{ role: string; text: string }> = [];
  let previousCached: number | undefined;
  for (let turn = 1; turn <= options.turns; turn++) {
    history.push({ role: 'user', text: `[${options.tag}] conversation ${index}, question ${turn}: what comes next in the plan?` });
    const userIndexes = history.flatMap((entry, position) => (entry.role === 'user' ? [position] : []));
    const marked = new Set(userIndexes.slice(-2));
    const body = {
      model: options.model,
      max_tokens: 64,
      system: [{ type: 'text', text: `[${options.tag}] You are planning assistant number ${index}. ${FILLER}`, cache_control: EPHEMERAL }],
      messages: history.map((entry, position) =>
        entry.role === 'user' ? userMessage(entry.text, marked.has(position)) : { role: 'assistant', content: entry.text },
      ),
      ...(index < (options.withUserId ?? 0) ? { metadata: { user_id: `${options.tag}-session-${index}` } } : {}),
    };
    figures.requests++;
    const response = await fetch(`${options.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as MessagesAnswer;
    if (response.status !== 200 || !answer.usage) {
      figures.errors++;
      return;
    }
    const read = answer.usage.cache_read_input_tokens ?? 0;
    const written = answer.usage.cache_creation_input_tokens ?? 0;
    if (previousCached !== undefined) {
      figures.cacheableTokens += previousCached;
      figures.cacheReadTokens += read;
    }
    previousCached = read + written;
    history.push({
      role: 'assistant',
      text:
        answer.content
          ?.filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join('') || '.',
    });
  }
}

export async function runConversations(options: ConversationOptions): Promise<ConversationFigures> {
  const figures: ConversationFigures = { requests: 0, errors: 0, cacheableTokens: 0, cacheReadTokens: 0, cachedShare: 0 };
  await Promise.all(Array.from({ length: options.conversations }, (_, index) => runConversation(options, index, figures)));
  figures.cachedShare = figures.cacheableTokens === 0 ? 0 : Number((figures.cacheReadTokens / figures.cacheableTokens).toFixed(4));
  return figures;
}
