/** Chat pass-through when the client did not ask for usage: drops the usage-only chunk the gateway requested. */
import { SseParser } from '../shared/sse-parser';

export function createChatUsageFilter(): (chunk: string) => string {
  const parser = new SseParser();
  return (chunk) => {
    let out = '';
    for (const event of parser.push(chunk)) {
      if (event.data !== '[DONE]' && event.data.includes('"usage"')) {
        try {
          const parsed = JSON.parse(event.data) as { choices?: unknown[]; usage?: unknown };
          if (Array.isArray(parsed.choices) && parsed.choices.length === 0 && parsed.usage) continue;
        } catch {
          /* not JSON: pass it on */
        }
      }
      out += `data: ${event.data}\n\n`;
    }
    return out;
  };
}
