import { topUpAccount } from '../../../src/billing/top-up-account';
import { createAccount, createGroup } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { createKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createAdmission } from '../../../src/limits/create-admission';
import { GatewayError } from '../../../src/errors/gateway-error';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';

describe('topUpAccount', () => {
  let deps: TestDependencies;
  beforeAll(async () => {
    deps = await createTestDependencies();
  });
  afterAll(async () => {
    await deps.close();
  });

  it('makes new credits spendable at once, even when admission already cached an empty wallet', async () => {
    const accountId = await createAccount(deps.db, { name: 'topup', tier: 'pro' });
    const groupId = await createGroup(deps.db, { name: 'topup-group' });
    const { secret } = await insertApiKey(deps.db, deps.crypto, { accountId, groupId, name: 'k' });
    const authenticator = createKeyAuthenticator(deps);
    const admission = createAdmission(deps);
    const key = await authenticator.authenticate(secret, '127.0.0.1');
    const admit = () =>
      admission.admit({ key, clientIp: '127.0.0.1', requestId: `req_${Math.random()}`, reserveCredits: 10, takesLease: true });
    // The empty wallet is now in the Redis cache.
    await expect(admit()).rejects.toMatchObject({ kind: 'insufficient_balance' } as Partial<GatewayError>);
    const result = await topUpAccount(deps, accountId, 1_000_000, 'topup-test');
    expect(result).toEqual({ balanceCredits: 1_000_000, walletCacheUpdated: true });
    const ticket = await admit();
    await ticket.release();
    await authenticator.close();
  });
});
