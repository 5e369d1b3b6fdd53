/**
 * The official Messages SDK as a test client with a fake `fetch`: whatever our codec renders is
 * served back as the HTTP answer, so the SDK's own parser and stream accumulator judge it.
 */
import Anthropic from '@anthropic-ai/sdk';

/** A body delivered in the given pieces, to exercise the SDK's SSE parser across chunk boundaries. */
function streamOf(pieces: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(encoder.encode(pieces[next++]));
      else controller.close();
    },
  });
}

export interface FakeAnswer {
  status?: number;
  /** The body, whole or in pieces. */
  body: string | readonly string[];
  headers?: Record<string, string>;
}

/** An SDK client whose every request gets `answer` (a function sees the request first). */
export function fakeMessagesClient(answer: FakeAnswer | ((url: string, init: RequestInit | undefined) => FakeAnswer)): Anthropic {
  return new Anthropic({
    apiKey: 'sk-svc-test',
    baseURL: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const given = typeof answer === 'function' ? answer(url, init) : answer;
      const pieces = typeof given.body === 'string' ? [given.body] : given.body;
      return new Response(streamOf(pieces), {
        status: given.status ?? 200,
        headers: given.headers ?? { 'content-type': 'text/event-stream' },
      });
    },
  });
}

export const SDK_REQUEST: Anthropic.MessageCreateParamsNonStreaming = {
  // A name the SDK has no deprecation notice for (it warns on console for retired slugs).
  model: 'gateway-test-model',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Hello' }],
};

/** Feeds SSE text to the SDK's `messages.stream(...).finalMessage()` accumulator. */
export async function sdkFinalMessage(sse: string | readonly string[]): Promise<Anthropic.Message> {
  const client = fakeMessagesClient({ body: sse });
  return client.messages.stream(SDK_REQUEST).finalMessage();
}

/** The error the SDK raises for a rendered error answer or stream, or undefined if it raised none. */
export async function sdkError(answer: FakeAnswer, stream: boolean): Promise<unknown> {
  const client = fakeMessagesClient(answer);
  try {
    if (stream) await client.messages.stream(SDK_REQUEST).finalMessage();
    else await client.messages.create(SDK_REQUEST);
    return undefined;
  } catch (error) {
    return error;
  }
}

export { Anthropic };
