// Several processes starting at once on an empty PostgreSQL, without ADMIN_API_KEY: exactly one
// of them creates (and prints) the first admin key. And two admins revoking the last two admin
// keys at once cannot leave none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConfig } from '../../src/config.ts';
import { createApiKey, revokeKey, type KeyDeps } from '../../src/services/api-keys.ts';
import { ensureAdminKey } from '../../src/services/bootstrap-admin.ts';
import { systemClock } from '../../src/clock.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';
/** Each process's key use cases: no ADMIN_API_KEY, and no key checks of its own to tell. */
const keysOn = (store: KeyDeps['store']): KeyDeps => ({
  store,
  clock: systemClock,
  secret: SECRET,
  sealKey: Buffer.alloc(32),
  envAdminConfigured: false,
  authenticator: null,
});
const skip = dialectName !== 'postgres' && 'processes racing matters on PostgreSQL (TEST_DATABASE_URL)';

test('processes starting together on an empty store create one first admin key', { skip }, async (t) => {
  const stores = await freshStores(t, 4);
  const config = createConfig({ DATABASE_URL: 'postgres://unused', KEY_HASH_SECRET: SECRET });
  const printed = await Promise.all(stores.map((store) => ensureAdminKey(store, config, SECRET, systemClock)));
  assert.equal(printed.filter((key) => key !== null).length, 1, 'one process prints a key');
  const admins = await stores[0]!.db.selectFrom('api_keys').select('id').where('role', '=', 'admin').execute();
  assert.equal(admins.length, 1);
});

test('two admins revoking the last two admin keys at once leave one', { skip }, async (t) => {
  const [a, b] = await freshStores(t, 2);
  const first = await createApiKey(a!.db, SECRET, systemClock, { role: 'admin', username: 'ann', actor: null });
  const second = await createApiKey(a!.db, SECRET, systemClock, { role: 'admin', username: 'bob', actor: null });
  const results = await Promise.allSettled([
    revokeKey(keysOn(a!), first.id, second.id),
    revokeKey(keysOn(b!), second.id, first.id),
  ]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one revocation wins');
  const refused = results.find((r) => r.status === 'rejected');
  assert.equal((refused as PromiseRejectedResult).reason.code, 'last_admin_key');
  const active = await a!.db
    .selectFrom('api_keys')
    .select('id')
    .where('role', '=', 'admin')
    .where('revoked_at', 'is', null)
    .execute();
  assert.equal(active.length, 1);
});
