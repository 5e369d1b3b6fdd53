/** Issue 25 item 8: a Chat pass-through body carries only what the target's vendor defines. */
import { stripChatExtensions } from '../../../../src/protocols/chat/chat-pass-through-body';

const replayed = () => ({
  model: 'm',
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello', reasoning_content: 'thought', reasoning_signature: 'gw-envelope' },
  ],
});

describe('stripChatExtensions', () => {
  it("OpenAI: neither the gateway's reasoning_signature nor reasoning_content go upstream; the client's body is untouched", () => {
    const client = replayed();
    const body: Record<string, unknown> = { ...client };
    stripChatExtensions(body, 'openai');
    expect(body.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    expect(client.messages[1]).toHaveProperty('reasoning_signature');
  });
  it.each(['deepseek', 'moonshot'])('%s takes reasoning_content back; the signature never', (family) => {
    const body: Record<string, unknown> = replayed();
    stripChatExtensions(body, family);
    expect((body.messages as unknown[])[1]).toEqual({ role: 'assistant', content: 'hello', reasoning_content: 'thought' });
  });
});
