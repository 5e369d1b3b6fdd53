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

export function latencyMs(startedAt: string, createdAt: string): string {
  const ms = new Date(createdAt).getTime() - new Date(startedAt).getTime();
  return ms >= 0 ? `${ms.toLocaleString('en-US')} ms` : '—';
}
