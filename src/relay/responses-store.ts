/**
 * Responses the gateway returns are stored (scoped to the account) with the whole conversation up to
 * and including the answer, so `previous_response_id` chains for every family, not only the native one.
 */
import type { Pool } from 'pg';
import { findStoredConversation, insertStoredResponse } from '../db/repositories/responses';
import { GatewayError } from '../errors/gateway-error';
import type { Turn } from '../ir/parts';
import type { SystemPart } from '../ir/request';
import { isStorableText, storableJson, UNSTORABLE_TEXT_MESSAGE } from '../http/storable-text';

export interface StoredConversation {
  system: SystemPart[];
  turns: Turn[];
}

export interface ResponsesStore {
  save(input: {
    id: string;
    accountId: number;
    model: string;
    conversation: StoredConversation;
    response: Record<string, unknown>;
  }): Promise<void>;
  /** Throws 400 (`previous_response_id` not found) for unknown ids and ids of another account. */
  load(id: string, accountId: number): Promise<StoredConversation>;
}

export function createResponsesStore(db: Pool): ResponsesStore {
  return {
    async save(input) {
      await insertStoredResponse(db, {
        id: input.id,
        accountId: input.accountId,
        model: input.model,
        // NUL is legal in a prompt but not in jsonb: the stored copy is made storable (docs/reliability.md).
        conversation: storableJson(input.conversation),
        response: storableJson(input.response),
      });
    },
    async load(id, accountId) {
      // PostgreSQL text cannot hold U+0000: such an id can exist nowhere, and must not reach the query.
      if (!isStorableText(id))
        throw new GatewayError('invalid_request', `previous_response_id ${UNSTORABLE_TEXT_MESSAGE}`, { param: 'previous_response_id' });
      const conversation = await findStoredConversation<StoredConversation>(db, id, accountId);
      if (!conversation)
        throw new GatewayError('invalid_request', `previous_response_id ${id} was not found`, { param: 'previous_response_id' });
      return conversation;
    },
  };
}
