/** Entries of the durable streams: one JSON payload in field `e` (a usage event), or `b` (a JSON array of request records). */
export interface Entry {
  id: string;
  payload: string | undefined;
}

/** `[id, [field, value, …]]` rows of XREADGROUP / XAUTOCLAIM; a deleted entry may come with no fields. */
export function toEntries(rows: unknown, field = 'e'): Entry[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row: unknown) => {
    const [id, fields] = Array.isArray(row) ? row : [];
    const list = Array.isArray(fields) ? fields.map(String) : [];
    const at = list.indexOf(field);
    return { id: String(id), payload: at >= 0 ? list[at + 1] : undefined };
  });
}
