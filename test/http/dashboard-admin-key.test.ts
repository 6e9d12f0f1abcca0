// Dashboard sessions opened with ADMIN_API_KEY are bound to that key: a restart with the same key
// keeps them, a restart with another one (or none) ends them; sessions of stored keys are untouched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConfig } from '../../src/config.ts';
import { composeApp } from '../../src/compose.ts';
import { createLogger } from '../../src/logger.ts';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';
import { storeEnv } from '../helpers/store-url.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function signIn(h: Pick<TestApp, 'app'>, key: string): Promise<string> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: FORM,
    payload: new URLSearchParams({ apiKey: key }).toString(),
  });
  assert.equal(response.statusCode, 303, response.body);
  return String(response.headers['set-cookie'] ?? '').split(';')[0] ?? '';
}

/** Whether the cookie opens the Keys page (an admin page) on `app`. */
async function signedIn(app: TestApp['app'], cookie: string): Promise<boolean> {
  const page = await app.inject({ method: 'GET', url: '/ui/keys', headers: { cookie } });
  return page.statusCode === 200;
}

/** Another process start on the same store, with `adminApiKey` as ADMIN_API_KEY (null: unset). */
async function restart(h: TestApp, adminApiKey: string | null) {
  const config = createConfig({
    ...(adminApiKey === null ? {} : { ADMIN_API_KEY: adminApiKey }),
    KEY_HASH_SECRET: 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz',
    DATABASE_URL: h.config.databaseUrl,
    LOG_LEVEL: 'silent',
    TRACKER: 'off',
    ...storeEnv,
  });
  const { app } = await composeApp(config, {
    logger: createLogger('silent', { pretty: false }),
    clock: h.clock,
    trackerClock: { now: h.clock.now, sleep: async () => {} },
  });
  await app.ready();
  return app;
}

test('changing ADMIN_API_KEY and restarting ends the dashboard sessions it opened', async (t) => {
  const h = await build(t, { tracker: false });
  const stored = await h.createKey('admin');
  const envCookie = await signIn(h, ADMIN_KEY);
  const storedCookie = await signIn(h, stored.apiKey);
  assert.ok(await signedIn(h.app, envCookie));

  const same = await restart(h, ADMIN_KEY);
  try {
    assert.ok(await signedIn(same, envCookie), 'the same ADMIN_API_KEY keeps its sessions');
  } finally {
    await same.close();
  }

  const changed = await restart(h, 'another-admin-key-0123456789abcdefghijklmn');
  try {
    assert.equal(await signedIn(changed, envCookie), false, 'a new ADMIN_API_KEY ends the old one’s sessions');
    assert.ok(await signedIn(changed, storedCookie), 'a stored key’s session is not touched');
    // Bound to the value: a process still configured with the old key serves them.
    assert.ok(await signedIn(h.app, envCookie), 'the process still running with the old key keeps them');
  } finally {
    await changed.close();
  }

  const removed = await restart(h, null);
  try {
    assert.equal(await signedIn(removed, envCookie), false, 'removing ADMIN_API_KEY ends its sessions');
  } finally {
    await removed.close();
  }
});
