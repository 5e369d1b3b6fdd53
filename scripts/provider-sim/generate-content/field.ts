import type { JsonRecord } from '../json';

/** Google's JSON mapping accepts a field under its lowerCamel name or its proto (snake_case) name. */
export function field(record: JsonRecord, camelName: string): unknown {
  const value = record[camelName];
  if (value !== undefined) return value;
  return record[camelName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
}
