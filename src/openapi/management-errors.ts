/** The error responses every management operation may answer (OpenAI-style envelope). */
import { errorRef, type Operation } from './openapi-types';

export const MANAGEMENT_ERRORS = {
  '400': errorRef('BadRequest'),
  '401': errorRef('Unauthorized'),
  '403': errorRef('Forbidden'),
  '404': errorRef('NotFound'),
  '429': errorRef('TooManyRequests'),
  '500': errorRef('ServerError'),
};

export const MANAGEMENT_SECURITY: Operation['security'] = [{ bearer: [] }, { apiKeyHeader: [] }, { session: [] }];
