// The key cache under a flood of well-formed random keys: keys that work stay cached (the least
// recently used goes first, and unknown keys are kept apart), and an unknown key is remembered
// briefly, so a flood costs no store lookup per repeat. A revocation written elsewhere (straight
// into the store here) shows which answers came from the cache.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { formatApiKey, hashApiKey } from '../../src/domain/api-key-format.ts';
import { KeyAuthenticator } from '../../src/services/key-authenticator.ts';
import { build, type TestApp } from '../helpers/app.ts';

const revokeInStore = (h: TestApp, id: string) =>
  h.deps.store.db.updateTable('api_keys').set({ revoked_at: h.clock.now() }).where('id', '=', id).execute();

const authenticator = (h: TestApp, maxCached?: number) =>
  new KeyAuthenticator(h.deps.store.reader, h.deps.store.db, {
    secret: h.deps.keyHashSecret,
    envAdminKey: null,
    cacheTtlMs: h.config.keyCacheTtlMs,
    clock: h.clock,
    ...(maxCached === undefined ? {} : { maxCached }),
  });

test('a flood of well-formed random keys, four times the cache, does not flush a working key from it', async (t) => {
  const h = await build(t, { tracker: false });
  // A small cache, so the flood is quick: the 10,000 of a server fill the same way.
  const keys = authenticator(h, 50);
  const working = await h.createKey('app');
  assert.equal((await keys.check(working.apiKey)).ok, true);
  for (let i = 0; i < 200; i++) assert.equal((await keys.check(formatApiKey(randomBytes(32)))).ok, false);
  await revokeInStore(h, working.id);
  // Still the cached answer: the flood did not make it be looked up again (within the TTL).
  assert.equal((await keys.check(working.apiKey)).ok, true);
  h.clock.advance(h.config.keyCacheTtlMs);
  assert.deepEqual(await keys.check(working.apiKey), { ok: false, reason: 'revoked' });
});

test('a full cache lets go of the least recently used key', async (t) => {
  const h = await build(t, { tracker: false });
  const keys = authenticator(h, 3);
  const [a, b, c, d] = [
    await h.createKey('app'),
    await h.createKey('app'),
    await h.createKey('app'),
    await h.createKey('app'),
  ];
  for (const key of [a, b, c]) assert.equal((await keys.check(key.apiKey)).ok, true);
  assert.equal((await keys.check(a.apiKey)).ok, true); // a used again: b is now the oldest use
  assert.equal((await keys.check(d.apiKey)).ok, true); // the fourth evicts b
  await revokeInStore(h, a.id);
  await revokeInStore(h, b.id);
  assert.equal((await keys.check(a.apiKey)).ok, true, 'a was kept');
  assert.deepEqual(await keys.check(b.apiKey), { ok: false, reason: 'revoked' }, 'b was looked up again');
});

test('an unknown key is remembered briefly: refused without a lookup, then looked up again', async (t) => {
  const h = await build(t, { tracker: false });
  const keys = authenticator(h);
  const future = formatApiKey(randomBytes(32));
  assert.deepEqual(await keys.check(future), { ok: false, reason: 'invalid' });
  // The key now exists (as if made elsewhere): the refusal is still remembered for a moment...
  const made = await h.createKey('app');
  await h.deps.store.db
    .updateTable('api_keys')
    .set({ key_hash: hashApiKey(future, h.deps.keyHashSecret) })
    .where('id', '=', made.id)
    .execute();
  assert.deepEqual(await keys.check(future), { ok: false, reason: 'invalid' });
  // ...and only for a moment.
  h.clock.advance(1_000);
  assert.equal((await keys.check(future)).ok, true);
});
