/** The fixed tokenizer, and usage that billing tests can predict the same way on every protocol. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { countInputTokens, countTextTokens, IMAGE_INPUT_TOKENS } from '../../scripts/provider-sim/tokens';
import { ANTHROPIC_HEADERS, GOOGLE_HEADERS, OPENAI_HEADERS, post } from './sim-support';

describe('countTextTokens', () => {
  it.each<[string, number]>([
    ['', 0],
    ['a', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['é', 1],
    ['日本語', 3],
    ['x'.repeat(400), 100],
    ['x'.repeat(401), 101],
  ])('%j has %d tokens', (text, tokens) => {
    expect(countTextTokens(text)).toBe(tokens);
  });

  it('adds 85 per image to the input', () => {
    expect(IMAGE_INPUT_TOKENS).toBe(85);
    expect(countInputTokens(['abcd', 'abcde'], 2)).toBe(1 + 2 + 170);
  });
});

describe('usage across protocols', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => sim.close());

  const system = 'You answer briefly.';
  const text = 'What is the capital of France? Answer in one word.';
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  const expectedInput =
    countTextTokens(system) +
    countTextTokens(text) +
    countTextTokens(JSON.stringify({ name: 'lookup', description: 'Look up', parameters: schema }));
  const expectedOutput = countTextTokens(`Echo: ${text}`);

  it('counts the same input and output tokens for the same prompt on every protocol', async () => {
    const messages = await post(
      sim,
      '/v1/messages',
      {
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        system,
        tools: [{ name: 'lookup', description: 'Look up', input_schema: schema }],
        messages: [{ role: 'user', content: text }],
      },
      ANTHROPIC_HEADERS,
    );
    const chat = await post(
      sim,
      '/v1/chat/completions',
      {
        model: 'gpt-4.1',
        tools: [{ type: 'function', function: { name: 'lookup', description: 'Look up', parameters: schema } }],
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: text },
        ],
      },
      OPENAI_HEADERS,
    );
    const responses = await post(
      sim,
      '/v1/responses',
      {
        model: 'gpt-4.1',
        instructions: system,
        tools: [{ type: 'function', name: 'lookup', description: 'Look up', parameters: schema }],
        input: text,
      },
      OPENAI_HEADERS,
    );
    const generate = await post(
      sim,
      '/v1beta/models/gemini-2.5-flash:generateContent',
      {
        systemInstruction: { parts: [{ text: system }] },
        tools: [{ functionDeclarations: [{ name: 'lookup', description: 'Look up', parameters: schema }] }],
        contents: [{ role: 'user', parts: [{ text }] }],
      },
      GOOGLE_HEADERS,
    );

    expect((messages.json as { usage: unknown }).usage).toMatchObject({ input_tokens: expectedInput, output_tokens: expectedOutput });
    expect((chat.json as { usage: unknown }).usage).toMatchObject({
      prompt_tokens: expectedInput,
      completion_tokens: expectedOutput,
      total_tokens: expectedInput + expectedOutput,
    });
    expect((responses.json as { usage: unknown }).usage).toMatchObject({
      input_tokens: expectedInput,
      output_tokens: expectedOutput,
      total_tokens: expectedInput + expectedOutput,
    });
    expect((generate.json as { usageMetadata: unknown }).usageMetadata).toMatchObject({
      promptTokenCount: expectedInput,
      candidatesTokenCount: expectedOutput,
      totalTokenCount: expectedInput + expectedOutput,
    });
  });

  it('counts a tool call as the tokens of its JSON arguments', async () => {
    const answer = await post(
      sim,
      '/v1/chat/completions',
      {
        model: 'gpt-4.1',
        tools: [{ type: 'function', function: { name: 'lookup', parameters: schema } }],
        messages: [{ role: 'user', content: 'lookup' }],
      },
      OPENAI_HEADERS,
    );
    expect((answer.json as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(countTextTokens('{"city":"example"}'));
  });
});
