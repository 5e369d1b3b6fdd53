/** A Responses answer kept for `previous_response_id` (only when the request had `store` on). */
export interface StoredResponse {
  /** The whole input the response answered: its own chain of previous inputs and outputs included. */
  inputItems: unknown[];
  outputItems: unknown[];
  /** The response object as returned, for `GET /v1/responses/{id}`. */
  response: Record<string, unknown>;
}
