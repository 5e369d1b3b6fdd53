/**
 * The one mapping from an OpenAI-shaped error to our kind, shared by the error-body decoder and the
 * in-band decoders (a stream's `error` event, `response.failed`, a failed complete body), so one
 * failure gets the same kind whether it came as an HTTP error or inside a 200.
 */
import { kindForUpstreamStatus, type ErrorKind } from '../../errors/gateway-error';

/**
 * The HTTP status OpenAI answers each error code (or, when the code is null, type) with. An error
 * inside a 200 has no status of its own; going through this status keeps `kindForUpstreamStatus`
 * the one place that turns failures into kinds. `insufficient_quota` is a 429 there, so a rate
 * limit here: the relay may move on to another upstream account.
 */
const STATUS_FOR_CODE = new Map<string, number>([
  ['rate_limit_exceeded', 429],
  ['insufficient_quota', 429],
  ['rate_limit_error', 429],
  // The `type` OpenAI puts beside `code: rate_limit_exceeded`.
  ['requests', 429],
  ['tokens', 429],
  ['context_length_exceeded', 400],
  ['invalid_prompt', 400],
  ['invalid_request_error', 400],
  ['invalid_image', 400],
  ['invalid_image_format', 400],
  ['invalid_base64_image', 400],
  ['invalid_image_url', 400],
  ['image_too_large', 400],
  ['image_too_small', 400],
  ['image_parse_error', 400],
  ['image_content_policy_violation', 400],
  ['invalid_image_mode', 400],
  ['image_file_too_large', 400],
  ['unsupported_image_media_type', 400],
  ['empty_image_file', 400],
  ['failed_to_download_image', 400],
  ['image_file_not_found', 400],
  ['server_is_overloaded', 503],
  ['overloaded', 503],
  ['slow_down', 503],
  ['vector_store_timeout', 504],
]);

export interface ResponsesErrorIdentity {
  /** The HTTP status, when the error came as one; absent for errors inside a 200 answer. */
  status?: number;
  code?: string;
  type?: string;
}

/**
 * A real HTTP status decides alone: a 401 or 404 also carries `type: invalid_request_error`, yet
 * is our account's failure, not the caller's. Without one, the code (else the type) stands in for it.
 */
export function kindForResponsesError({ status, code, type }: ResponsesErrorIdentity): ErrorKind {
  const known = (key: string | undefined): number | undefined => (key === undefined ? undefined : STATUS_FOR_CODE.get(key));
  return kindForUpstreamStatus(status ?? known(code) ?? known(type) ?? 500);
}
