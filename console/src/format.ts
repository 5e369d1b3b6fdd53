/** Display formats: money in USD, counts, times in the viewer's locale. */
export function usd(value: number): string {
  const digits = Math.abs(value) !== 0 && Math.abs(value) < 0.01 ? 6 : 2;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}

export function dateTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** A duration in milliseconds, or a dash when unknown. */
export function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${value.toLocaleString('en-US')} ms`;
}
