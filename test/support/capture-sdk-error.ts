/**
 * What each official SDK raises when our inbound codec renders an error: the error envelope of a
 * failed call (status, body, headers), or a stream that fails after its first frames.
 */
import type { Protocol } from '../../src/ir/protocol';
import type { RenderedError } from '../../src/protocols/codec';
import { chatClient, jsonResponse as chatJson, sseResponse as chatSse } from './sdk-chat';
import { sdkClient as generateContentClient } from './sdk-generate-content';
import { sdkError as messagesSdkError } from './sdk-messages';
import { jsonResponse as responsesJson, sdkClient as responsesClient, sseResponse as responsesSse } from './sdk-responses';

const MODEL = 'capture-error-model';

async function caught(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The error the SDK raises for an error answer before the first byte (undefined if none). */
export async function sdkErrorForEnvelope(protocol: Protocol, rendered: RenderedError): Promise<unknown> {
  const headers = { ...rendered.headers, 'content-type': 'application/json' };
  switch (protocol) {
    case 'messages':
      return messagesSdkError({ status: rendered.status, body: JSON.stringify(rendered.body), headers }, false);
    case 'chat':
      return caught(() =>
        chatClient(() => chatJson(rendered.status, rendered.body, rendered.headers)).chat.completions.create({
          model: MODEL,
          messages: [{ role: 'user', content: 'x' }],
        }),
      );
    case 'responses':
      return caught(() =>
        responsesClient(() => responsesJson(rendered.status, rendered.body, rendered.headers)).responses.create({
          model: MODEL,
          input: 'x',
        }),
      );
    case 'generate-content': {
      const { client } = generateContentClient(() => ({ status: rendered.status, body: JSON.stringify(rendered.body), headers }));
      return caught(() => client.models.generateContent({ model: MODEL, contents: 'x' }));
    }
  }
}

/** The error the SDK raises while reading a stream made of these frames (undefined if none). */
export async function sdkErrorForStream(protocol: Protocol, frames: readonly string[]): Promise<unknown> {
  switch (protocol) {
    case 'messages':
      return messagesSdkError({ body: frames }, true);
    case 'chat':
      return caught(() =>
        chatClient(() => chatSse(frames))
          .chat.completions.stream({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
          .finalChatCompletion(),
      );
    case 'responses':
      return caught(() =>
        responsesClient(() => responsesSse([...frames]))
          .responses.stream({ model: MODEL, input: 'x' })
          .finalResponse(),
      );
    case 'generate-content': {
      const { client } = generateContentClient(() => ({ body: frames.join(''), headers: { 'content-type': 'text/event-stream' } }));
      return caught(async () => {
        for await (const chunk of await client.models.generateContentStream({ model: MODEL, contents: 'x' })) void chunk;
      });
    }
  }
}
