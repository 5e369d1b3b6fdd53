/** Operations endpoints: liveness, readiness, metrics, this document. */
import { jsonResponse, type Paths } from './openapi-types';

const status = { type: 'object', properties: { status: { type: 'string' }, postgres: { type: 'string' }, redis: { type: 'string' } } };

export const HEALTH_PATHS: Paths = {
  '/healthz': {
    get: {
      summary: 'Process alive',
      tags: ['operations'],
      operationId: 'healthz',
      security: [],
      responses: { '200': jsonResponse('Alive', status) },
    },
  },
  '/readyz': {
    get: {
      summary: 'PostgreSQL and Redis reachable (load balancer health check)',
      tags: ['operations'],
      operationId: 'readyz',
      security: [],
      responses: { '200': jsonResponse('Ready', status), '503': jsonResponse('Not ready', status) },
    },
  },
  '/metrics': {
    get: {
      summary: 'Prometheus metrics',
      tags: ['operations'],
      operationId: 'metrics',
      security: [],
      responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
  '/openapi.json': {
    get: {
      summary: 'This OpenAPI document',
      tags: ['operations'],
      operationId: 'openapi',
      security: [],
      responses: { '200': jsonResponse('OpenAPI 3.1 document', { type: 'object' }) },
    },
  },
};
