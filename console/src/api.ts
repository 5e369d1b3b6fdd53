/**
 * The management API as the console calls it: the session cookie travels by itself (same origin),
 * and every state change carries the session's CSRF token. Errors come back as ApiError with the
 * envelope's message and parameter.
 */
let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

interface Envelope {
  error?: { message?: string; param?: string | null } | string;
  message?: string;
}

export function errorMessage(body: unknown, status: number): { message: string; param?: string } {
  const envelope = (body ?? {}) as Envelope;
  if (typeof envelope.error === 'object' && envelope.error?.message)
    return { message: envelope.error.message, param: envelope.error.param ?? undefined };
  if (typeof envelope.error === 'string') return { message: envelope.error };
  return { message: envelope.message ?? `HTTP ${status}` };
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : {};
  if (!response.ok) {
    const { message, param } = errorMessage(parsed, response.status);
    throw new ApiError(response.status, message, param);
  }
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}

export interface Session {
  csrf_token: string;
  account_id: number;
  user: { id: number; email: string };
  /** Active upstream accounts, and how many of them are the provider simulator (simulated answers). */
  upstreams?: { active: number; simulated: number };
}

export interface ApiKey {
  id: number;
  name: string;
  key: string;
  group_id: number;
  group_name: string;
  status: string;
  quota: number;
  spent: number;
  rate_limit_5h: number;
  rate_limit_1d: number;
  rate_limit_7d: number;
  ip_whitelist: string[];
  ip_blacklist: string[];
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  /** Empty: every model. */
  allowed_models: string[];
}

export interface AuditEvent {
  id: number;
  account_id: number | null;
  actor: { type: string; id: number | null; label: string | null };
  action: string;
  target: { type: string; id: string | null };
  address: string | null;
  before: unknown;
  after: unknown;
  created_at: string;
}

export interface Account {
  id: number;
  name: string;
  kind: string;
  organization: { id: number; name: string } | null;
  tier: string;
  concurrency_cap: number;
  balance: number;
  held: number;
  user: { email?: string } | null;
}

export interface UsageRow {
  id: number;
  request_id: string;
  api_key_id: number | null;
  model: string;
  protocol: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  images: number;
  video_seconds: number;
  credits: number;
  cost: number;
  stream: boolean;
  status: string;
  started_at: string;
  created_at: string;
  duration_ms: number | null;
  ttfb_ms: number | null;
}

/** One request of the request log (issue 22). */
export interface RequestRecord {
  request_id: string;
  account_id: number;
  api_key_id: number | null;
  protocol: string;
  model: string | null;
  upstream_account_id: number | null;
  status: number;
  outcome: 'ok' | 'error' | 'aborted';
  error_class: string | null;
  duration_ms: number;
  ttfb_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  stream: boolean;
  replayed: boolean;
  warnings: string[];
  has_bodies: boolean;
  created_at: string;
}

export interface RequestDetail extends RequestRecord {
  routing: { outcome: string; steps: Array<Record<string, unknown>> } | null;
  usage: UsageRow | null;
  ledger_entries: Transaction[];
  bodies: { request: string | null; response: string | null; stream_events: number | null; truncated: boolean } | null;
}

export interface Transaction {
  id: number;
  kind: string;
  amount: number;
  balance_after: number;
  reference: string | null;
  description: string | null;
  api_key_id: number | null;
  created_at: string;
}

export interface Model {
  id: string;
  family: string;
  kind: string;
  owned_by: string;
  capabilities: string[];
  context_window: number;
  max_output_tokens: number;
  input_modalities: string[];
  output_modalities: string[];
  protocols: string[];
  groups: string[];
  pricing: Record<string, number | Record<string, number> | string | undefined>;
}

// The server's own list (a pure module), so the console cannot drift from it.
export { PROTOCOLS } from '../../src/ir/protocol';

/** A key's plaintext, for the playground's and the tasks page's own calls only: never rendered. */
export async function keySecret(keyId: number): Promise<string> {
  return (await get<{ key: string }>(`/api/v1/keys/${keyId}/reveal`)).key;
}

export interface AlertRule {
  id: number;
  kind: 'key_quota' | 'key_spend_window' | 'wallet_below' | 'error_rate';
  event: string;
  api_key_id: number | null;
  window: string | null;
  threshold: number | null;
  amount: number | null;
  window_minutes: number | null;
  min_requests: number | null;
  state: 'ok' | 'firing';
  last_value: number | null;
  last_fired_at: string | null;
  created_at: string;
}

export interface Webhook {
  id: number;
  url: string;
  events: string[];
  secret_last4: string;
  active: boolean;
  created_at: string;
  secret?: string;
}

export interface WebhookDelivery {
  id: number;
  webhook_id: number;
  alert_rule_id: number | null;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  delivered_at: string | null;
}
