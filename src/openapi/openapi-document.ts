/**
 * The OpenAPI 3.1 document of every endpoint, served at /openapi.json. One module per area; a new
 * route is added to its area's module (test/production/openapi.test.ts fails on a route of the app
 * that is not documented, and on a documented route that answers 404).
 */
import { COMPONENTS } from './components';
import { CONSOLE_PATHS } from './paths-console';
import { COUNT_TOKENS_PATHS } from './paths-count-tokens';
import type { Paths } from './openapi-types';
import { ACCOUNT_PATHS } from './paths-account';
import { ALERT_PATHS } from './paths-alerts';
import { HEALTH_PATHS } from './paths-health';
import { INFERENCE_PATHS } from './paths-inference';
import { KEY_PATHS } from './paths-keys';
import { MEDIA_PATHS } from './paths-media';
import { MODEL_PATHS } from './paths-models';
import { REQUEST_PATHS } from './paths-requests';

export const OPENAPI_AREAS: readonly Paths[] = [
  HEALTH_PATHS,
  INFERENCE_PATHS,
  COUNT_TOKENS_PATHS,
  MODEL_PATHS,
  MEDIA_PATHS,
  KEY_PATHS,
  ACCOUNT_PATHS,
  ALERT_PATHS,
  REQUEST_PATHS,
  CONSOLE_PATHS,
];

export function buildOpenApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Model gateway',
      version,
      description:
        "Messages, Responses, Chat Completions and Generate-Content over one API key, plus images, async tasks, keys and the account. Every error is in the envelope of the route's protocol.",
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: ['inference', 'models', 'images', 'tasks', 'keys', 'account', 'console', 'operations'].map((name) => ({ name })),
    paths: Object.assign({}, ...OPENAPI_AREAS) as Paths,
    components: COMPONENTS,
  };
}
