/**
 * First start on an empty database: group `default` (routes every model) and one group per family,
 * the simulator as upstream account for every family (marked as the simulator, which the console shows), a demo account (tier pro, 100 USD), and a key
 * in group `default` (BOOTSTRAP_API_KEY as its secret when set). Does nothing when any account exists.
 */
import type { Pool } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
import type { Catalog } from '../catalog/catalog';
import type { Protocol } from '../ir/protocol';
import { anyAccountExists } from '../db/repositories/accounts';
import { SIMULATOR_PROVIDER } from '../db/repositories/upstream-accounts';
import { insertApiKey } from '../keys/insert-api-key';
import { addUpstreamAccount, createAccount, createGroup, topUp } from './seed';

export interface BootstrapResult {
  created: boolean;
  accountId?: number;
  keyId?: number;
  /** The plaintext key, shown once. */
  key?: string;
}

export async function bootstrap(
  db: Pool,
  crypto: SecretCrypto,
  catalog: Catalog,
  options: {
    /** Undefined: no upstream accounts (the operator connects providers with `admin upstream add`). */
    simulatorUrl?: string;
    simulatorKey: string;
    apiKey?: string;
  },
): Promise<BootstrapResult> {
  if (await anyAccountExists(db)) return { created: false };
  const families = [...new Set(catalog.models.map((m) => m.family))];
  const defaultGroup = await createGroup(db, { name: 'default', family: null });
  const familyGroups = new Map<string, number>();
  for (const family of families) familyGroups.set(family, await createGroup(db, { name: family, family }));
  // One upstream account per native protocol per group, serving that protocol's models. A model
  // with two native protocols (family 2) is served by both, so either inbound shape passes through.
  const byProtocol = new Map<Protocol, Map<string, string[]>>();
  for (const model of catalog.models) {
    const protocols = model.kind === 'chat' ? model.nativeProtocols : model.nativeProtocols.slice(0, 1);
    for (const protocol of protocols) {
      const families = byProtocol.get(protocol) ?? new Map<string, string[]>();
      families.set(model.family, [...(families.get(model.family) ?? []), model.id]);
      byProtocol.set(protocol, families);
    }
  }
  for (const [protocol, familyModels] of options.simulatorUrl === undefined ? [] : byProtocol) {
    const simulatorUrl = options.simulatorUrl!;
    const all = [...familyModels.values()].flat();
    await addUpstreamAccount(db, crypto, {
      groupId: defaultGroup,
      name: `simulator ${protocol}`,
      protocol,
      baseUrl: simulatorUrl,
      apiKey: options.simulatorKey,
      models: all,
      provider: SIMULATOR_PROVIDER,
    });
    for (const [family, models] of familyModels) {
      await addUpstreamAccount(db, crypto, {
        groupId: familyGroups.get(family)!,
        name: `simulator ${protocol}`,
        protocol,
        baseUrl: simulatorUrl,
        apiKey: options.simulatorKey,
        models,
        provider: SIMULATOR_PROVIDER,
      });
    }
  }
  const accountId = await createAccount(db, { name: 'demo', tier: 'pro' });
  await topUp(db, accountId, 100_000_000, 'bootstrap', 'bootstrap credit');
  const key = await insertApiKey(db, crypto, { accountId, groupId: defaultGroup, name: 'bootstrap', secret: options.apiKey });
  return { created: true, accountId, keyId: key.id, key: key.secret };
}
