/** The few OpenAPI 3.1 shapes the document modules build (JSON Schema objects stay open records). */
export type JsonSchema = Record<string, unknown>;

export interface Operation {
  summary: string;
  description?: string;
  tags: string[];
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
}

export type PathItem = Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>;
export type Paths = Record<string, PathItem>;

/** A JSON response with a schema (a `$ref` or an inline schema). */
export function jsonResponse(description: string, schema: JsonSchema): Record<string, unknown> {
  return { description, content: { 'application/json': { schema } } };
}

export function jsonBody(schema: JsonSchema, required = true): Record<string, unknown> {
  return { required, content: { 'application/json': { schema } } };
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const errorRef = (name: string): Record<string, unknown> => ({ $ref: `#/components/responses/${name}` });
