/** Create or edit a key: every field of interface 2.1, checked as you type, server errors shown on their field. */
import { useState, type FormEvent } from 'react';
import { api, ApiError, get, type ApiKey, type Page } from '../api';
import { ErrorNote, Field, useLoad } from '../components';
import { EMPTY_KEY_FORM, keyFormBody, keyFormErrors, type KeyFormValues } from './key-form';

const toText = (value: number) => String(value);

function fromKey(key: ApiKey): KeyFormValues {
  return {
    name: key.name,
    group_id: String(key.group_id),
    quota: toText(key.quota),
    expires_in_days: '',
    rate_limit_5h: toText(key.rate_limit_5h),
    rate_limit_1d: toText(key.rate_limit_1d),
    rate_limit_7d: toText(key.rate_limit_7d),
    ip_whitelist: key.ip_whitelist.join('\n'),
    ip_blacklist: key.ip_blacklist.join('\n'),
    custom_key: '',
    allowed_models: (key.allowed_models ?? []).join('\n'),
  };
}

export function KeyForm({ existing, onDone, onCancel }: { existing?: ApiKey; onDone: (created?: ApiKey) => void; onCancel: () => void }) {
  const creating = existing === undefined;
  const groups = useLoad(() => get<Page<{ id: number; name: string; family: string | null }>>('/api/v1/me/routing-groups'));
  const [values, setValues] = useState<KeyFormValues>(existing ? fromKey(existing) : EMPTY_KEY_FORM);
  const [touched, setTouched] = useState<Partial<Record<keyof KeyFormValues, boolean>>>({});
  const [serverError, setServerError] = useState<ApiError | undefined>();
  const errors = keyFormErrors(values, creating);
  const shown = (field: keyof KeyFormValues) =>
    (touched[field] ? errors[field] : undefined) ?? (serverError?.param === field ? serverError.message : undefined);

  const input = (field: keyof KeyFormValues, props: Record<string, unknown> = {}) => ({
    id: `key-${field}`,
    value: values[field],
    'aria-invalid': shown(field) ? true : undefined,
    'aria-describedby': shown(field) ? `key-${field}-error` : `key-${field}-hint`,
    onChange: (event: { target: { value: string } }) => {
      setValues({ ...values, [field]: event.target.value });
      setTouched({ ...touched, [field]: true });
    },
    ...props,
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(Object.fromEntries(Object.keys(values).map((field) => [field, true])));
    if (Object.keys(errors).length > 0) return;
    setServerError(undefined);
    try {
      const body = keyFormBody(values, creating, existing ? String(existing.group_id) : undefined);
      if (creating) onDone(await api<ApiKey>('POST', '/api/v1/keys', body));
      else {
        await api('PUT', `/api/v1/keys/${existing.id}`, body);
        onDone();
      }
    } catch (caught) {
      if (caught instanceof ApiError) setServerError(caught);
      else throw caught;
    }
  }

  return (
    <form
      className="panel"
      onSubmit={(event) => void submit(event)}
      aria-label={creating ? 'Create key' : `Edit key ${existing.name}`}
      noValidate
    >
      <h2>{creating ? 'Create key' : `Edit ${existing.name}`}</h2>
      <div className="grid">
        <Field id="key-name" label="Name" error={shown('name')}>
          <input {...input('name', { required: true })} />
        </Field>
        <Field
          id="key-group_id"
          label="Routing group"
          error={shown('group_id')}
          hint={creating ? 'The groups this account may use' : 'Choose another group to move the key'}
        >
          <select {...input('group_id')}>
            <option value="">{creating ? 'Choose…' : `${existing.group_name} (current)`}</option>
            {groups.data?.data.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
                {g.family ? ` (${g.family} only)` : ' (every model)'}
              </option>
            ))}
          </select>
        </Field>
        <Field id="key-quota" label="Lifetime quota (USD)" hint="0 is unlimited" error={shown('quota')}>
          <input {...input('quota', { inputMode: 'decimal' })} />
        </Field>
        <Field
          id="key-expires_in_days"
          label="Expires in (days)"
          hint={creating ? 'Empty: never' : 'Empty: unchanged; counted from now'}
          error={shown('expires_in_days')}
        >
          <input {...input('expires_in_days', { inputMode: 'numeric' })} />
        </Field>
        <Field id="key-rate_limit_5h" label="5-hour limit (USD)" hint="0 is unlimited" error={shown('rate_limit_5h')}>
          <input {...input('rate_limit_5h', { inputMode: 'decimal' })} />
        </Field>
        <Field id="key-rate_limit_1d" label="1-day limit (USD)" hint="0 is unlimited" error={shown('rate_limit_1d')}>
          <input {...input('rate_limit_1d', { inputMode: 'decimal' })} />
        </Field>
        <Field id="key-rate_limit_7d" label="7-day limit (USD)" hint="0 is unlimited" error={shown('rate_limit_7d')}>
          <input {...input('rate_limit_7d', { inputMode: 'decimal' })} />
        </Field>
        <Field
          id="key-ip_whitelist"
          label="IP allow list"
          hint="Addresses or CIDR blocks, one per line; empty allows every caller"
          error={shown('ip_whitelist')}
        >
          <textarea rows={3} {...input('ip_whitelist')} />
        </Field>
        <Field id="key-ip_blacklist" label="IP deny list" hint="Addresses or CIDR blocks, one per line" error={shown('ip_blacklist')}>
          <textarea rows={3} {...input('ip_blacklist')} />
        </Field>
        <Field
          id="key-allowed_models"
          label="Allowed models"
          hint="Model slugs or prefix* patterns, one per line; empty allows every model"
          error={shown('allowed_models')}
        >
          <textarea rows={3} {...input('allowed_models', { spellCheck: false })} />
        </Field>
        {creating && (
          <Field id="key-custom_key" label="Custom key (optional)" hint="Empty: the gateway generates one" error={shown('custom_key')}>
            <input {...input('custom_key', { autoComplete: 'off', spellCheck: false })} />
          </Field>
        )}
      </div>
      <ErrorNote error={serverError && !serverError.param ? serverError : undefined} />
      {serverError?.param && !(serverError.param in values) && <ErrorNote error={serverError} />}
      <div className="actions">
        <button type="submit">{creating ? 'Create' : 'Save'}</button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
