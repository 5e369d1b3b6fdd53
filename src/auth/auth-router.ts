/**
 * Console login and logout. Login checks the scrypt password record, opens a session and sets it
 * in an HttpOnly, SameSite=Lax cookie (Secure over TLS); the answer carries the session's CSRF token,
 * which the console sends back in `x-csrf-token` on every state change. Failed logins are counted
 * in Redis per email and per client address (so one address cannot try many emails), and either
 * count at its limit refuses logins with 429 and Retry-After until its window ends. Every attempt is audited (who, from where, the outcome).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Dependencies } from '../dependencies';
import { hashPassword, needsRehash } from '../auth/hash-password';
import { findConsoleUserByEmail, updatePasswordHash } from '../db/repositories/console-users';
import { countSimulatedUpstreams } from '../db/repositories/upstream-accounts';
import { GatewayError } from '../errors/gateway-error';
import {
  createConsoleSession,
  csrfTokenMatches,
  deleteConsoleSession,
  findConsoleSession,
  SESSION_COOKIE,
  SESSION_TTL_MS,
} from './console-session';
import { createClientIpResolver } from './client-ip';
import { createRequireSession, managementPrincipal } from './management-auth';
import { readCookie } from './read-cookie';
import { requestIsTls } from './request-is-tls';
import { verifyPassword } from './verify-password';
import { parseBody } from './parse-body';
import { requestAddress } from './audit-actor';
import { recordAudit } from '../audit/record-audit';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../http/storable-text';

const MAX_FAILED_LOGINS = 10;
/** Per client address, across emails: above a mistyping office behind one NAT, below a spraying run. */
const MAX_FAILED_LOGINS_PER_ADDRESS = 15;
const FAILED_LOGIN_WINDOW_MS = 15 * 60_000;

const loginSchema = z.object({
  email: z.string().trim().min(1).max(320).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE),
  password: z.string().min(1).max(1024),
});

function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** The login routes of one router: the decoy password record and the client address resolver they share. */
class AuthRoutes {
  // Unknown emails are checked against a throwaway record so both failures take the same time.
  private decoyRecord: Promise<string> | undefined;
  private readonly resolveIp: ReturnType<typeof createClientIpResolver>;

  constructor(private readonly deps: Dependencies) {
    this.resolveIp = createClientIpResolver(deps.config.trustedProxies);
  }

  readonly login = async (req: Request, res: Response): Promise<void> => {
    const deps = this.deps;
    const { email: rawEmail, password } = parseBody(loginSchema, req.body);
    const email = rawEmail.toLowerCase();
    const addressKey = this.addressFailuresKey(req);
    await this.refuseWhenThrottled(req, email, addressKey);
    const user = await findConsoleUserByEmail(deps.db, email);
    const valid = await verifyPassword(password, user?.passwordHash ?? (await this.decoy()));
    if (!user || !valid) {
      await deps.redis
        .multi()
        .incr(this.failuresKey(email))
        .pexpire(this.failuresKey(email), FAILED_LOGIN_WINDOW_MS)
        .incr(addressKey)
        .pexpire(addressKey, FAILED_LOGIN_WINDOW_MS)
        .exec();
      await this.auditLogin(req, email, user, 'console.login_failed', user ? 'wrong password' : 'unknown email');
      throw new GatewayError('authentication', 'invalid email or password');
    }
    await deps.redis.del(this.failuresKey(email));
    // A record below today's cost is replaced now that the password is known (unless it changed meanwhile).
    if (needsRehash(user.passwordHash)) await updatePasswordHash(deps.db, user.id, await hashPassword(password), user.passwordHash);
    const session = await createConsoleSession(deps.db, user.id, deps.clock.now());
    await this.auditLogin(req, email, user, 'console.login');
    res.setHeader(
      'set-cookie',
      sessionCookie(session.token, Math.floor(SESSION_TTL_MS / 1000), requestIsTls(req, deps.config.trustedProxies)),
    );
    res.status(200).json({
      object: 'session',
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt.toISOString(),
      account_id: user.accountId,
      user: { id: user.id, email: user.email },
      upstreams: await countSimulatedUpstreams(deps.db),
    });
  };

  /** The current session (the console reads its CSRF token again after a page reload). */
  readonly session = async (req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    const session = token ? await findConsoleSession(this.deps.db, token, this.deps.clock.now()) : undefined;
    if (!session) throw new GatewayError('authentication', 'console session expired or invalid; log in again');
    res.json({
      object: 'session',
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt.toISOString(),
      account_id: principal.accountId,
      user: { id: session.userId, email: session.email },
      // The console tells when answers come from the provider simulator rather than real models.
      upstreams: await countSimulatedUpstreams(this.deps.db),
    });
  };

  readonly logout = async (req: Request, res: Response): Promise<void> => {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    const session = token ? await findConsoleSession(this.deps.db, token, this.deps.clock.now()) : undefined;
    if (token && session) {
      const presented = req.headers['x-csrf-token'];
      if (!csrfTokenMatches(session.csrfToken, Array.isArray(presented) ? presented[0] : presented)) {
        throw new GatewayError('permission', 'missing or invalid CSRF token (x-csrf-token)');
      }
      await deleteConsoleSession(this.deps.db, token);
    }
    // Logging out of a session that is already gone is not an error: the cookie is cleared either way.
    res.setHeader('set-cookie', sessionCookie('', 0, requestIsTls(req, this.deps.config.trustedProxies)));
    res.status(200).json({ object: 'session', logged_out: true });
  };

  private decoy(): Promise<string> {
    return (this.decoyRecord ??= hashPassword(randomBytes(16).toString('hex')));
  }

  /** Every console login, successful or not, goes to the audit log (issue 21). */
  private auditLogin(
    req: Request,
    email: string,
    user: { id: number; accountId: number } | undefined,
    outcome: 'console.login' | 'console.login_failed',
    reason?: string,
  ) {
    return recordAudit(
      this.deps.db,
      {
        type: user && outcome === 'console.login' ? 'console_user' : 'anonymous',
        id: user ? user.id : null,
        label: email,
        address: requestAddress(this.resolveIp, req),
      },
      {
        accountId: user ? user.accountId : null,
        action: outcome,
        targetType: 'console_user',
        targetId: user ? user.id : null,
        after: reason ? { reason } : null,
      },
    );
  }

  private failuresKey(email: string): string {
    return this.deps.redisKeys.loginFailures(createHash('sha256').update(email).digest('hex'));
  }

  private addressFailuresKey(req: Request): string {
    const forwarded = req.headers['x-forwarded-for'];
    const address = this.resolveIp(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded);
    return this.deps.redisKeys.loginFailures(`address:${address}`);
  }

  /** Refuses (audited) while the address or the email has too many failed logins. */
  private async refuseWhenThrottled(req: Request, email: string, addressKey: string): Promise<void> {
    try {
      await this.refuseAtLimit(addressKey, MAX_FAILED_LOGINS_PER_ADDRESS, 'too many failed logins from this address; try again later');
      await this.refuseAtLimit(this.failuresKey(email), MAX_FAILED_LOGINS, 'too many failed logins for this account; try again later');
    } catch (error) {
      await this.auditLogin(req, email, undefined, 'console.login_failed', 'throttled');
      throw error;
    }
  }

  private async refuseAtLimit(counterKey: string, limit: number, message: string): Promise<void> {
    const failures = Number((await this.deps.redis.get(counterKey)) ?? 0);
    if (failures < limit) return;
    const ttl = await this.deps.redis.pttl(counterKey);
    throw new GatewayError('rate_limit', message, { retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) });
  }
}

export function createAuthRouter(deps: Dependencies): Router {
  const routes = new AuthRoutes(deps);
  const router = Router();
  router.post('/api/v1/auth/login', routes.login);
  router.get('/api/v1/auth/session', createRequireSession(deps), routes.session);
  router.post('/api/v1/auth/logout', routes.logout);
  return router;
}
