/**
 * Key management under `/api/v1/keys` and `/v1/keys`: list, get, create, update (PUT), reveal,
 * rotate, delete. The caller acts for one account (management auth); another account's key answers
 * 404, never 403, so its existence does not leak. Every change is pushed to every API process: the
 * key cache is invalidated over pub/sub, and status or secret changes are also recorded in the key's
 * admission state in Redis, so the very next admission anywhere sees them.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import { managementPrincipal } from '../auth/management-auth';
import { parseBody } from '../auth/parse-body';
import { requireUsableGroup } from '../auth/group-access';
import { canonicalAllowlist } from './canonical-allowlist';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { markKeySecret } from '../limits/mark-key-secret';
import { insertApiKey } from './insert-api-key';
import { inTransaction } from '../db/transaction';
import type { Queryable } from '../db/queryable';
import { deleteKey, findKey, listKeys, updateKey, type ApiKeyRow, type KeyChanges } from '../db/repositories/api-keys';
import { createKeySchema, rotateKeySchema, updateKeySchema, type UpdateKeyInput } from './key-request-schemas';
import { generateKeySecret } from '../auth/key-secret';
import { presentKey } from './present-key';
import { createAuditActorOf } from '../auth/audit-actor';
import { recordAudit, type AuditActor } from '../audit/record-audit';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface KeysRouterOptions {
  /** Drops a changed key from this process's cache and tells the others (management auth also authenticates with it). */
  authenticator: KeyAuthenticator;
  managementAuth: RequestHandler;
}

function keyIdParam(req: Request): number {
  const raw = req.params.id;
  // Anything that is not a plausible id cannot name a key of this account: same answer as a missing key.
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** The limit fields of a key's create and update bodies. */
type KeyLimitsInput = Pick<
  UpdateKeyInput,
  'quota' | 'rate_limit_5h' | 'rate_limit_1d' | 'rate_limit_7d' | 'ip_whitelist' | 'ip_blacklist' | 'allowed_models'
>;

function notFound(): GatewayError {
  return new GatewayError('not_found', 'API key not found');
}

/** The key routes of one router: what every handler shares (dependencies, the audit actor). */
class KeyRoutes {
  private readonly actorOf: ReturnType<typeof createAuditActorOf>;

  constructor(
    private readonly deps: Dependencies,
    private readonly authenticator: Pick<KeyAuthenticator, 'invalidate'>,
  ) {
    this.actorOf = createAuditActorOf(deps);
  }

  readonly list = async (_req: Request, res: Response): Promise<void> => {
    const { accountId } = managementPrincipal(res);
    const now = this.deps.clock.now();
    const rows = await listKeys(this.deps.db, accountId);
    res.json({ object: 'list', data: rows.map((row) => presentKey(row, now)) });
  };

  readonly create = async (req: Request, res: Response): Promise<void> => {
    const deps = this.deps;
    const { accountId } = managementPrincipal(res);
    const input = parseBody(createKeySchema, req.body);
    const { id: groupId } = await requireUsableGroup(deps.db, accountId, input.group_id);
    const now = deps.clock.now();
    const inserted = await insertApiKey(deps.db, deps.crypto, {
      accountId,
      groupId,
      name: input.name,
      secret: input.custom_key,
      ...this.limitsOf(input),
      expiresAt: input.expires_in_days ? new Date(now + input.expires_in_days * DAY_MS) : null,
    });
    // A process may hold a negative cache entry for this secret (a custom key tried before it existed).
    await this.propagate(accountId, inserted.id, [deps.crypto.hmac(inserted.secret)]);
    const row = await this.existing(accountId, inserted.id);
    await this.audit(deps.db, this.actorOf(req, res), 'key.create', row);
    res.status(201).json(presentKey(row, now, inserted.secret));
  };

  readonly get = async (req: Request, res: Response): Promise<void> => {
    const { accountId } = managementPrincipal(res);
    res.json(presentKey(await this.existing(accountId, keyIdParam(req)), this.deps.clock.now()));
  };

  readonly reveal = async (req: Request, res: Response): Promise<void> => {
    const { accountId } = managementPrincipal(res);
    const row = await this.existing(accountId, keyIdParam(req));
    await recordAudit(this.deps.db, this.actorOf(req, res), {
      accountId,
      action: 'key.reveal',
      targetType: 'api_key',
      targetId: Number(row.id),
    });
    res.setHeader('cache-control', 'no-store');
    res.json({ id: Number(row.id), object: 'api_key', key: this.deps.crypto.decrypt(row.secret_encrypted) });
  };

  readonly update = async (req: Request, res: Response): Promise<void> => {
    const { accountId } = managementPrincipal(res);
    const keyId = keyIdParam(req);
    const input = parseBody(updateKeySchema, req.body);
    const now = this.deps.clock.now();
    const before = await inTransaction(this.deps.db, async (client) => {
      const row = await findKey(client, accountId, keyId, { forUpdate: true });
      if (!row) throw notFound();
      if (row.status === 'revoked' && input.status !== undefined && input.status !== 'revoked') {
        throw new GatewayError('conflict', 'a revoked key is final: create a new key instead', { param: 'status' });
      }
      await updateKey(client, keyId, await this.keyChanges(client, accountId, input, now));
      const action =
        input.status === 'disabled' && row.status !== 'disabled'
          ? 'key.disable'
          : input.status === 'revoked' && row.status !== 'revoked'
            ? 'key.revoke'
            : 'key.update';
      await this.audit(client, this.actorOf(req, res), action, await findKey(client, accountId, keyId), row);
      return row;
    });
    const statusChanged = input.status !== undefined && input.status !== before.status;
    await this.propagate(
      accountId,
      keyId,
      [before.secret_hmac],
      statusChanged ? (input.status === 'active' ? before.secret_hmac : null) : undefined,
    );
    res.json(presentKey(await this.existing(accountId, keyId), now));
  };

  readonly rotate = async (req: Request, res: Response): Promise<void> => {
    const { accountId } = managementPrincipal(res);
    const keyId = keyIdParam(req);
    const input = parseBody(rotateKeySchema, req.body);
    const secret = input.custom_key ?? generateKeySecret();
    const hmac = this.deps.crypto.hmac(secret);
    const before = await inTransaction(this.deps.db, async (client) => {
      const row = await findKey(client, accountId, keyId, { forUpdate: true });
      if (!row) throw notFound();
      if (row.status === 'revoked') throw new GatewayError('conflict', 'a revoked key cannot be rotated: create a new key instead');
      try {
        await updateKey(client, keyId, { secret: { hmac, encrypted: this.deps.crypto.encrypt(secret), last4: secret.slice(-4) } });
      } catch (error) {
        if ((error as { code?: string }).code === '23505')
          throw new GatewayError('conflict', 'a key with this secret already exists', { param: 'custom_key' });
        throw error;
      }
      await this.audit(client, this.actorOf(req, res), 'key.rotate', await findKey(client, accountId, keyId), row);
      return row;
    });
    // The old secret dies now, everywhere; the new one is usable only if the key is active.
    await this.propagate(accountId, keyId, [before.secret_hmac, hmac], before.status === 'active' ? hmac : null);
    res.json(presentKey(await this.existing(accountId, keyId), this.deps.clock.now(), secret));
  };

  readonly delete = async (req: Request, res: Response): Promise<void> => {
    const { accountId } = managementPrincipal(res);
    const keyId = keyIdParam(req);
    const before = await findKey(this.deps.db, accountId, keyId);
    const deleted = await deleteKey(this.deps.db, accountId, keyId);
    if (!deleted || !before) throw notFound();
    await this.audit(this.deps.db, this.actorOf(req, res), 'key.delete', null, before);
    await this.propagate(accountId, keyId, [deleted.secretHmac], null);
    res.json({ id: keyId, object: 'api_key', deleted: true });
  };

  /** The limits a create or a PUT sets (absent fields unchanged, or the defaults on create). */
  private limitsOf(
    input: KeyLimitsInput,
  ): Pick<KeyChanges, 'quotaCredits' | 'rateLimit5h' | 'rateLimit1d' | 'rateLimit7d' | 'ipWhitelist' | 'ipBlacklist' | 'allowedModels'> {
    return {
      quotaCredits: input.quota,
      rateLimit5h: input.rate_limit_5h,
      rateLimit1d: input.rate_limit_1d,
      rateLimit7d: input.rate_limit_7d,
      ipWhitelist: input.ip_whitelist,
      ipBlacklist: input.ip_blacklist,
      allowedModels: canonicalAllowlist(this.deps.catalog, input.allowed_models),
    };
  }

  /** What a PUT changes; the group is checked in the update's transaction. */
  private async keyChanges(client: Queryable, accountId: number, input: UpdateKeyInput, now: number): Promise<KeyChanges> {
    return {
      name: input.name,
      ...this.limitsOf(input),
      groupId: input.group_id === undefined ? undefined : (await requireUsableGroup(client, accountId, input.group_id)).id,
      expiresAt:
        input.expires_in_days === undefined
          ? undefined
          : input.expires_in_days === null
            ? null
            : new Date(now + input.expires_in_days * DAY_MS),
      status: input.status,
    };
  }

  /** A key's audited state: what the API shows, without its secret (recordAudit drops `key`). */
  private audit(
    db: Parameters<typeof recordAudit>[0],
    actor: AuditActor,
    action: string,
    row: ApiKeyRow | undefined | null,
    before?: ApiKeyRow | null,
  ) {
    return recordAudit(db, actor, {
      accountId: Number((row ?? before)!.account_id),
      action,
      targetType: 'api_key',
      targetId: Number((row ?? before)!.id),
      before: before ? presentKey(before, this.deps.clock.now()) : null,
      after: row ? presentKey(row, this.deps.clock.now()) : null,
    });
  }

  private async existing(accountId: number, keyId: number): Promise<ApiKeyRow> {
    const row = await findKey(this.deps.db, accountId, keyId);
    if (!row) throw notFound();
    return row;
  }

  /**
   * Tells every process. The database change is already committed and is the truth: a Redis failure
   * here is logged, caches then expire within KEY_CACHE_TTL_MS, and admission double-checks a refused
   * secret against PostgreSQL.
   */
  private async propagate(accountId: number, keyId: number, invalidate: string[], allowedHmac?: string | null): Promise<void> {
    try {
      if (allowedHmac !== undefined) await markKeySecret(this.deps, accountId, keyId, allowedHmac);
      for (const hmac of invalidate) await this.authenticator.invalidate(hmac);
    } catch (error) {
      this.deps.logger.error({ err: error, keyId }, 'key change committed but not propagated through Redis');
    }
  }
}

export function createKeysRouter(deps: Dependencies, options: KeysRouterOptions): Router {
  const routes = new KeyRoutes(deps, options.authenticator);
  const keys = Router();
  keys.get('/', routes.list);
  keys.post('/', routes.create);
  keys.get('/:id', routes.get);
  keys.get('/:id/reveal', routes.reveal);
  keys.put('/:id', routes.update);
  keys.post('/:id/rotate', routes.rotate);
  keys.delete('/:id', routes.delete);

  const router = Router();
  router.use(['/api/v1/keys', '/v1/keys'], options.managementAuth, keys);
  return router;
}
