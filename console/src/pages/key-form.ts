/** The key form's fields and their checks as you type (the same CIDR parser and model pattern as the server). */
import { parseCidr } from '../../../src/auth/ip-rules';
import { MODEL_PATTERN } from '../../../src/auth/model-allowlist';

export interface KeyFormValues {
  name: string;
  group_id: string;
  quota: string;
  expires_in_days: string;
  rate_limit_5h: string;
  rate_limit_1d: string;
  rate_limit_7d: string;
  ip_whitelist: string;
  ip_blacklist: string;
  custom_key: string;
  /** One model slug or prefix* pattern per line; empty allows every model. */
  allowed_models: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = {
  name: '',
  group_id: '',
  quota: '0',
  expires_in_days: '',
  rate_limit_5h: '0',
  rate_limit_1d: '0',
  rate_limit_7d: '0',
  ip_whitelist: '',
  ip_blacklist: '',
  custom_key: '',
  allowed_models: '',
};

export function ipList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function modelList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function modelListError(text: string): string | undefined {
  const bad = modelList(text).filter((entry) => !MODEL_PATTERN.test(entry));
  return bad.length ? `not a model slug or prefix* pattern: ${bad.join(', ')}` : undefined;
}

export function ipListError(text: string): string | undefined {
  const bad = ipList(text).filter((entry) => parseCidr(entry) === undefined);
  return bad.length ? `not an IPv4/IPv6 address or CIDR block: ${bad.join(', ')}` : undefined;
}

function usdError(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? undefined : 'a number of USD, 0 for unlimited';
}

export function keyFormErrors(values: KeyFormValues, creating: boolean): Partial<Record<keyof KeyFormValues, string>> {
  const errors: Partial<Record<keyof KeyFormValues, string>> = {};
  if (!values.name.trim()) errors.name = 'a name is required';
  if (creating && !values.group_id) errors.group_id = 'pick a routing group';
  for (const field of ['quota', 'rate_limit_5h', 'rate_limit_1d', 'rate_limit_7d'] as const) {
    const problem = usdError(values[field]);
    if (problem) errors[field] = problem;
  }
  if (values.expires_in_days.trim() && !/^[1-9][0-9]{0,4}$/.test(values.expires_in_days.trim()))
    errors.expires_in_days = 'a whole number of days (1 or more), or empty for never';
  const white = ipListError(values.ip_whitelist);
  if (white) errors.ip_whitelist = white;
  const black = ipListError(values.ip_blacklist);
  if (black) errors.ip_blacklist = black;
  const models = modelListError(values.allowed_models);
  if (models) errors.allowed_models = models;
  if (creating && values.custom_key && !/^sk-svc-[A-Za-z0-9_-]{24,128}$/.test(values.custom_key)) {
    errors.custom_key = 'sk-svc- followed by 24 to 128 letters, digits, _ or -';
  }
  return errors;
}

/** `originalGroupId`: when editing, the key's group (sent only when moved, so an unchanged group is never re-checked). */
export function keyFormBody(values: KeyFormValues, creating: boolean, originalGroupId?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: values.name.trim(),
    quota: Number(values.quota || 0),
    rate_limit_5h: Number(values.rate_limit_5h || 0),
    rate_limit_1d: Number(values.rate_limit_1d || 0),
    rate_limit_7d: Number(values.rate_limit_7d || 0),
    ip_whitelist: ipList(values.ip_whitelist),
    ip_blacklist: ipList(values.ip_blacklist),
    allowed_models: modelList(values.allowed_models),
  };
  const days = values.expires_in_days.trim();
  if (creating) {
    body.group_id = Number(values.group_id);
    if (days) body.expires_in_days = Number(days);
    if (values.custom_key) body.custom_key = values.custom_key;
  } else {
    if (days) body.expires_in_days = Number(days);
    if (values.group_id && values.group_id !== originalGroupId) body.group_id = Number(values.group_id);
  }
  return body;
}
