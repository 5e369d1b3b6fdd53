/**
 * Stored responses (`stored_responses`), scoped to an account: the conversation up to and including
 * each answer, so `previous_response_id` can continue it. Values arrive already storable as jsonb.
 */
import type { Queryable } from '../queryable';

/** A second save of the same id keeps the first. */
export async function insertStoredResponse(
  db: Queryable,
  input: { id: string; accountId: number; model: string; conversation: unknown; response: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO stored_responses (id, account_id, model, conversation, response) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [input.id, input.accountId, input.model, input.conversation, input.response],
  );
}

/** The stored conversation (as the caller saved it), or undefined for an unknown id or another account's. */
export async function findStoredConversation<TConversation>(
  db: Queryable,
  id: string,
  accountId: number,
): Promise<TConversation | undefined> {
  const result = await db.query<{ conversation: TConversation }>(
    'SELECT conversation FROM stored_responses WHERE id = $1 AND account_id = $2',
    [id, accountId],
  );
  return result.rows[0]?.conversation;
}
