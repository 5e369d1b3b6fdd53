/** Issue 25 item 3: the Responses WebSocket wire: client messages, error events, warm-ups. */
import {
  completedResponse,
  errorEvent,
  inputItems,
  readClientMessage,
  turnHeaders,
  warmUpEvents,
} from '../../../../src/protocols/responses/websocket-events';
import { deterministicContext } from '../../../support/sdk-responses';

describe('Responses WebSocket events', () => {
  it('reads response.create as a streamed POST body without the transport fields', () => {
    const message = readClientMessage(
      JSON.stringify({ type: 'response.create', model: 'gpt-5', input: [], generate: false, client_metadata: { a: '1' }, stream: false }),
    );
    expect(message).toEqual({ kind: 'create', generate: false, body: { model: 'gpt-5', input: [], stream: true } });
    expect(readClientMessage(JSON.stringify({ type: 'response.create', model: 'gpt-5', input: 'hi' }))).toMatchObject({ generate: true });
  });

  it('reads acknowledgements, and names what is wrong with anything else', () => {
    expect(readClientMessage(JSON.stringify({ type: 'response.processed', response_id: 'resp_1' }))).toEqual({ kind: 'acknowledgement' });
    expect(readClientMessage('{oops')).toMatchObject({ kind: 'invalid', message: expect.stringContaining('JSON object') });
    expect(readClientMessage('{"type":"session.update"}')).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('session.update'),
    });
  });

  it('renders an error envelope as an error event with its status', () => {
    expect(JSON.parse(errorEvent(429, { error: { type: 'rate_limit_error', message: 'slow down' } }))).toEqual({
      type: 'error',
      status: 429,
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
  });

  it('answers a warm-up with a response and no output or usage', () => {
    const warmUp = warmUpEvents('gpt-5', deterministicContext(7));
    const [created, completed] = warmUp.frames.map((frame) => JSON.parse(frame) as Record<string, any>);
    expect(created).toMatchObject({ type: 'response.created', response: { id: warmUp.id, status: 'in_progress', output: [] } });
    expect(completed).toMatchObject({
      type: 'response.completed',
      response: { id: warmUp.id, status: 'completed', output: [], usage: { total_tokens: 0 } },
    });
    expect(completedResponse(warmUp.frames[1]!)).toEqual({ id: warmUp.id, output: [] });
    expect(completedResponse(warmUp.frames[0]!)).toBeUndefined();
  });

  it('reads the input of a body as items', () => {
    expect(inputItems({ input: 'hi' })).toEqual([{ type: 'message', role: 'user', content: 'hi' }]);
    expect(inputItems({ input: [{ type: 'message' }] })).toHaveLength(1);
  });

  it("serves each response without the WebSocket's own headers or its beta", () => {
    const headers = turnHeaders({
      authorization: 'Bearer k',
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-key': 'x',
      'sec-websocket-version': '13',
      'openai-beta': 'responses_websockets=2026-02-06, other=1',
      session_id: 's1',
    });
    expect(headers).toEqual({ authorization: 'Bearer k', 'openai-beta': 'other=1', session_id: 's1' });
    expect(turnHeaders({ 'openai-beta': 'responses_websockets=2026-02-06' })).toEqual({});
  });
});
