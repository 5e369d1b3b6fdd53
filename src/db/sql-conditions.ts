/** A WHERE clause built from optional filters, with numbered parameters (`?` becomes `$n`). */
export interface SqlConditions {
  add(sql: string, value: unknown): void;
  /** Appends a value and returns its placeholder (e.g. for LIMIT). */
  param(value: unknown): string;
  where(): string;
  values: unknown[];
}

/** Starts with one condition and its value, or with none (`where()` is then `TRUE` until one is added). */
export function sqlConditions(first?: string, firstValue?: unknown): SqlConditions {
  const conditions = first === undefined ? [] : [first.replace('?', '$1')];
  const values: unknown[] = first === undefined ? [] : [firstValue];
  return {
    values,
    add(sql, value) {
      values.push(value);
      conditions.push(sql.replace('?', `$${values.length}`));
    },
    param(value) {
      values.push(value);
      return `$${values.length}`;
    },
    where: () => (conditions.length === 0 ? 'TRUE' : conditions.join(' AND ')),
  };
}
