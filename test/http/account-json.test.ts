// One account's answer is written straight from the stored JSON text (storage/accounts-map.ts,
// toAccountJson). It must be, byte for byte, what the route's serializer writes for the same
// account, for every state the tracker leaves an account in, and fall back to the serializer when a
// stored column is not in the form the shortcut relies on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Platform } from '../../src/domain/platforms.ts';
import { findAccountJson } from '../../src/storage/accounts-repo.ts';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const HOUR = 3_600_000;

async function worldWithEveryState(t: Parameters<typeof build>[0]) {
  const x = await startFakeX();
  const bsky = await startFakeBluesky();
  t.after(async () => {
    await x.close();
    await bsky.close();
  });
  const jack = x.addUser({
    username: 'jack',
    name: 'Jack "the" Founder',
    followers: 321,
    description: 'line\nbreak é 🐦',
  });
  x.addPost(jack.id, { text: 'hello #perch', hashtags: ['perch'], likes: 4, createdAt: '2026-11-23T11:00:00.000Z' });
  const quiet = x.addUser({ username: 'quiet', followers: 5 });
  const gone = x.addUser({ username: 'gone', followers: 7 });
  const old = x.addUser({ username: 'oldname', followers: 9 });
  bsky.addUser({ handle: 'alice.bsky.social', followers: 12 });
  const api = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url, BLUESKY_API_BASE_URL: bsky.url });
  const file = 'username,tags\njack,"founders;vip"\nquiet,\ngone,\noldname,\nnobody_here,\nalice.bsky.social,friends\n';
  const insert = await api.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: { file } });
  assert.equal(insert.statusCode, 200, insert.body);
  const note = await api.app.inject({
    method: 'PATCH',
    url: '/api/admin/accounts/x/quiet',
    headers: admin,
    payload: { note: 'a "quoted" note\twith a tab' },
  });
  assert.equal(note.statusCode, 200, note.body);
  await api.tracker?.tick();
  // A rename and a suspension, seen at the next check.
  x.rename(old.id, 'newname');
  x.suspend(gone.id);
  for (const name of ['oldname', 'gone']) {
    const refresh = await api.app.inject({
      method: 'POST',
      url: `/api/admin/accounts/x/${name}/refresh`,
      headers: admin,
    });
    assert.equal(refresh.statusCode, 202, refresh.body);
  }
  await api.tracker?.tick();
  return { api, quiet };
}

/** The single answer, its twin by path, and the serializer's record of the same account (from a batch). */
async function answers(api: TestApp, platform: string, name: string) {
  const one = await api.app.inject({
    method: 'GET',
    url: `/api/?username=${name}&platform=${platform}`,
    headers: admin,
  });
  const byPath = await api.app.inject({ method: 'GET', url: `/api/accounts/${platform}/${name}`, headers: admin });
  const batch = await api.app.inject({
    method: 'GET',
    url: `/api/?usernames=${name}&platform=${platform}`,
    headers: admin,
  });
  assert.equal(one.statusCode, 200, one.body);
  assert.equal(byPath.statusCode, 200, byPath.body);
  assert.equal(batch.statusCode, 200, batch.body);
  const [record] = batch.json().data;
  assert.ok(record, `${name} is in the batch`);
  return { one, byPath, serialized: JSON.stringify(record) };
}

test('one account is answered from its stored text exactly as the serializer writes it, in every state', async (t) => {
  const { api } = await worldWithEveryState(t);
  const names: [string, string, string][] = [
    ['x', 'jack', 'active'],
    ['x', 'quiet', 'active'],
    ['x', 'gone', 'suspended'],
    ['x', 'newname', 'active'],
    ['x', 'nobody_here', 'not_found'],
    ['bluesky', 'alice.bsky.social', 'active'],
  ];
  for (const [platform, name, status] of names) {
    const { one, byPath, serialized } = await answers(api, platform, name);
    assert.equal(one.json().status, status, `${name}: ${one.body}`);
    assert.equal(one.body, serialized, `${name}: the stored text and the serializer agree`);
    assert.equal(byPath.body, serialized);
    assert.equal(one.headers['content-type'], 'application/json; charset=utf-8');
    // What the tracker writes is in the form the shortcut takes (no fallback to the serializer).
    const found = await findAccountJson(
      api.deps.store.reader,
      api.deps.store.caps,
      { platform: platform as Platform, key: name },
      () => false,
    );
    assert.ok(found !== null && 'json' in found, `${name} is written from its stored text`);
  }
  const jack = (await answers(api, 'x', 'jack')).one.json();
  assert.equal(jack.profile.displayName, 'Jack "the" Founder');
  assert.deepEqual(jack.tags, ['founders', 'vip']);
  assert.equal(jack.analysis.stale, false);
  assert.equal((await answers(api, 'x', 'quiet')).one.json().note, 'a "quoted" note\twith a tab');
  assert.deepEqual(
    (await answers(api, 'x', 'newname')).one.json().renames.map((r: { from: string }) => r.from),
    ['oldname'],
  );

  // Staleness is decided at read time: three hours without a check (interval 1 h) makes it true.
  api.clock.advance(3 * HOUR);
  const { one, serialized } = await answers(api, 'x', 'jack');
  assert.equal(one.json().analysis.stale, true);
  assert.equal(one.body, serialized);
});

test('a stored column not in the expected form is answered through the serializer, never as broken JSON', async (t) => {
  const { api } = await worldWithEveryState(t);
  const db = api.deps.store.db;
  const row = await db
    .selectFrom('accounts')
    .select(['analysis', 'metrics'])
    .where('username_key', '=', 'jack')
    .executeTakeFirstOrThrow();
  const analysis = JSON.parse(row.analysis ?? 'null') as Record<string, unknown>;
  const { stale, ...rest } = analysis;

  // `stale` written first instead of last: the answer still carries the read-time value.
  await db
    .updateTable('accounts')
    .set({ analysis: JSON.stringify({ stale: !stale, ...rest }) })
    .where('username_key', '=', 'jack')
    .execute();
  let { one, serialized } = await answers(api, 'x', 'jack');
  assert.equal(one.body, serialized);
  assert.equal(one.json().analysis.stale, false);

  // A truncated profile: read as no profile, as everywhere else, and the answer is valid JSON.
  await db.updateTable('accounts').set({ profile: '{"displayName":"Ja' }).where('username_key', '=', 'jack').execute();
  ({ one, serialized } = await answers(api, 'x', 'jack'));
  assert.equal(one.body, serialized);
  assert.equal(one.json().profile, null);

  // Metrics that do not parse: no metrics, and the stored analysis as it is.
  await db.updateTable('accounts').set({ metrics: '{"followers":' }).where('username_key', '=', 'jack').execute();
  ({ one, serialized } = await answers(api, 'x', 'jack'));
  assert.equal(one.body, serialized);
  assert.equal(one.json().metrics, null);
});

test('many lookups at once each get their own account, whatever else is asked beside them', async (t) => {
  const api = await build(t);
  const names = Array.from({ length: 80 }, (_, i) => `reader${i}`);
  const insert = await api.admin('POST', '/api/admin/insert', {
    file: `username,tags\n${names.map((n, i) => `${n},t${i}`).join('\n')}\n`,
  });
  assert.equal(insert.statusCode, 200, insert.body);
  const stopped = await api.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/reader3', headers: admin });
  assert.equal(stopped.statusCode, 200, stopped.body);
  // Asked together (so that a store which gathers lookups answers them in shared queries): every
  // tracked name twice, a name never imported, and the untracked one.
  const asked = [...names, ...names, 'never_imported', 'reader3'];
  const answers = await Promise.all(
    asked.map((name) => api.app.inject({ method: 'GET', url: `/api/?username=${name}`, headers: admin })),
  );
  asked.forEach((name, i) => {
    const answer = answers[i] as (typeof answers)[number];
    if (name === 'never_imported' || name === 'reader3') {
      assert.equal(answer.statusCode, 404, `${name}: ${answer.body}`);
      assert.equal(answer.json().code, 'account_not_found');
      return;
    }
    assert.equal(answer.statusCode, 200, `${name}: ${answer.body}`);
    assert.equal(answer.json().username, name);
    assert.deepEqual(answer.json().tags, [`t${names.indexOf(name)}`]);
  });
});
