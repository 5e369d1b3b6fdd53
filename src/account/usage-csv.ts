/** Usage rows as CSV (the console's export): the columns of `GET /api/v1/me/usage`, RFC 4180 quoting. */
import { presentUsageRow } from './present-usage-row';
import type { UsageRowRecord } from './list-usage-rows';

const COLUMNS = [
  'id', 'request_id', 'api_key_id', 'model', 'protocol', 'status', 'stream', 'prompt_tokens', 'completion_tokens',
  'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'images', 'video_seconds', 'credits', 'cost',
  'started_at', 'created_at',
] as const;

function cell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function usageCsv(rows: UsageRowRecord[]): string {
  const lines = [COLUMNS.join(',')];
  for (const row of rows) {
    const presented = presentUsageRow(row);
    lines.push(COLUMNS.map((column) => cell(presented[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
