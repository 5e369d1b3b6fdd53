/** Entries of the durable streams (usage events, request records): one JSON payload in field `e`. */
export interface Entry { id: string; payload: string | undefined }

/** `[id, [field, value, …]]` rows of XREADGROUP / XAUTOCLAIM; a deleted entry may come with no fields. */
export function toEntries(rows: unknown): Entry[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row: unknown) => {
    const [id, fields] = Array.isArray(row) ? row : [];
    const list = Array.isArray(fields) ? fields.map(String) : [];
    const at = list.indexOf('e');
    return { id: String(id), payload: at >= 0 ? list[at + 1] : undefined };
  });
}
