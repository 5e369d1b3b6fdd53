/**
 * The model-list endpoints, in each provider's shape: `GET /v1/models` (OpenAI's list; Anthropic's
 * paginated list when the call carries `anthropic-version`), `GET /v1beta/models` (Google's, with
 * `models/` names and the generation methods). One page each: the simulator's lists are short.
 */
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';

const CREATED = 1_735_689_600;

export function handleOpenAIModelList(context: SimContext): void {
  const names = new Set([
    ...context.state.models.names('chat'),
    ...context.state.models.names('responses'),
    ...context.state.models.names('images'),
  ]);
  sendJson(context, 200, { object: 'list', data: [...names].map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'system' })) });
}

export function handleAnthropicModelList(context: SimContext): void {
  const data = context.state.models
    .names('messages')
    .map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }));
  sendJson(context, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

export function handleGoogleModelList(context: SimContext): void {
  const models = [
    ...context.state.models
      .names('generate-content')
      .map((name) => ({ name: `models/${name}`, displayName: name, supportedGenerationMethods: ['generateContent', 'countTokens'] })),
    ...context.state.models
      .names('video')
      .map((name) => ({ name: `models/${name}`, displayName: name, supportedGenerationMethods: ['predictLongRunning'] })),
  ];
  sendJson(context, 200, { models });
}
