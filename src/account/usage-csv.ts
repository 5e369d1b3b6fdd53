/** Usage rows as CSV (the console's export): the columns of `GET /api/v1/me/usage`, RFC 4180 quoting, streamed. */
import { presentUsageRow } from './present-usage-row';
import type { Pool } from 'pg';
import { listUsageRows, type UsageFilters, type UsageRowRecord } from './list-usage-rows';

const COLUMNS = [
  'id',
  'request_id',
  'api_key_id',
  'model',
  'protocol',
  'status',
  'stream',
  'prompt_tokens',
  'completion_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'images',
  'video_seconds',
  'credits',
  'cost',
  'started_at',
  'created_at',
] as const;

function cell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLines(rows: readonly UsageRowRecord[]): string {
  return rows
    .map((row) => {
      const presented = presentUsageRow(row);
      return `${COLUMNS.map((column) => cell(presented[column])).join(',')}\r\n`;
    })
    .join('');
}

/** The listing's filters; `beforeId` (a cursor) starts after that row. */
export type UsageCsvFilters = Omit<UsageFilters, 'limit'>;

/**
 * Writes the rows matching `filters` as CSV (header first), newest first, `pageRows` at a time
 * (keyset pages of the listing's query): memory stays flat whatever the number of rows, and `write`
 * (waiting for the client to take each chunk) paces the reads. Returns the number of rows written.
 */
export async function writeUsageCsv(
  db: Pool,
  filters: UsageCsvFilters,
  write: (chunk: string) => Promise<void>,
  pageRows = 2_000,
): Promise<number> {
  await write(`${COLUMNS.join(',')}\r\n`);
  let beforeId = filters.beforeId;
  let written = 0;
  for (;;) {
    const rows = await listUsageRows(
      db,
      { ...filters, limit: pageRows, ...(beforeId === undefined ? {} : { beforeId }) },
      { timings: false },
    );
    const shown = rows.slice(0, pageRows);
    if (shown.length > 0) await write(csvLines(shown));
    written += shown.length;
    if (rows.length <= pageRows) return written;
    beforeId = shown[shown.length - 1]!.id;
  }
}
