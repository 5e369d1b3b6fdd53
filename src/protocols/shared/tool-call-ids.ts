/**
 * Messages requires `tool_use.id` to match `^[a-zA-Z0-9_-]+$`. Ids from other protocols are
 * sanitized deterministically, so `tool_use.id` and `tool_result.tool_use_id` map identically.
 */
const SAFE_ID = /^[A-Za-z0-9_-]+$/;

export function sanitizeToolCallId(id: string): string {
  if (SAFE_ID.test(id)) return id;
  if (id === '') return 'toolu_empty';
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}
