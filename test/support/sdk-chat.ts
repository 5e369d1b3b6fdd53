/**
 * The official OpenAI SDK as a Chat client of our encoders, with no network: a fake `fetch`
 * answers every request with the frames or error body under test. It also records the request the
 * SDK sent, so tests can check what a real client puts on the wire.
 */
import OpenAI from 'openai';

export interface RecordedRequest {
  url: string;
  body: unknown;
}

/** A streamed body that hands the frames over one read at a time, as a socket would. */
export function sseResponse(frames: readonly string[]): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= frames.length) controller.close();
      else controller.enqueue(encoder.encode(frames[next++]));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function chatClient(answer: () => Response, requests: RecordedRequest[] = []): OpenAI {
  const fakeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const text = typeof init?.body === 'string' ? init.body : '';
    requests.push({ url, body: text === '' ? undefined : JSON.parse(text) });
    return answer();
  };
  return new OpenAI({ apiKey: 'sk-svc-test', baseURL: 'http://127.0.0.1:9/v1', fetch: fakeFetch, maxRetries: 0 });
}
