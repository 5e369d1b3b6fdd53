/**
 * A refusal before admission (a bad body, a model the key may not use, no account to route to) still
 * carries the caller's accounting headers: `work`'s error is thrown again after they are peeked.
 */
import type { ServerResponse } from 'node:http';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { locals } from '../http/request-context';
import type { Admission } from './admission';

export async function withPeekedHeaders<T>(
  admission: Pick<Admission, 'peekHeaders'>,
  key: AuthenticatedKey,
  res: ServerResponse,
  work: () => Promise<T> | T,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    locals(res).accountingHeaders = await admission.peekHeaders(key).catch(() => ({}));
    throw error;
  }
}
