/**
 * Opaque keyset-pagination cursors: the id of the last row of a page, tagged with what it pages
 * through so a usage cursor is refused by the transactions listing. Rows are listed newest first,
 * so the next page holds the rows with a smaller id.
 */
import { GatewayError } from '../errors/gateway-error';

export function encodeCursor(kind: string, lastId: number): string {
  return Buffer.from(`${kind}:${lastId}`, 'utf8').toString('base64url');
}

/** The last id a cursor names; a GatewayError naming `cursor` when it is not one of ours. */
export function decodeCursor(kind: string, cursor: string): number {
  const match = /^([a-z_]+):(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match ? Number(match[2]) : Number.NaN;
  if (!match || match[1] !== kind || !Number.isSafeInteger(id) || id < 1) {
    throw new GatewayError('invalid_request', 'cursor: not a cursor returned by this listing (use next_cursor as given)', {
      param: 'cursor',
    });
  }
  return id;
}

/** `{object: list, data, has_more, next_cursor}` from `limit + 1` fetched rows. */
export function page<T extends { id: number }>(rows: T[], limit: number, cursorKind: string, present: (row: T) => Record<string, unknown>) {
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    object: 'list',
    data: shown.map(present),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(cursorKind, last.id) : null,
  };
}
