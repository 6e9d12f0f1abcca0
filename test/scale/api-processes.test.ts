// Several real `perch api` processes on one store (a shared SQLite file, or one PostgreSQL schema)
// act as one service: a key revoked through one is refused by the other within 5 s, and the per-key
// rate limit and the failed-authentication throttle count across both.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatApiKey } from '../../src/domain/api-key-format.ts';
import { ADMIN_KEY } from '../helpers/app.ts';
import { startApi, type ServerProcess } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';

const WINDOW_MS = 60_000;

/** Two `perch api` processes on a fresh store, stopped and the store dropped after the test. */
async function startPair(t: TestContext, env: Record<string, string> = {}): Promise<[ServerProcess, ServerProcess]> {
  const location = await freshStoreUrl();
  const common = {
    DATABASE_URL: location.url,
    ADMIN_API_KEY: ADMIN_KEY,
    KEY_HASH_SECRET: 'scale-secret-0123456789abcdefghijklmnop',
    ...env,
  };
  const started: ServerProcess[] = [];
  t.after(async () => {
    for (const server of started) server.child.kill('SIGKILL');
    await Promise.all(started.map((server) => server.exited));
    await location.drop();
  });
  // One after the other: the first creates the schema, the second finds it ready.
  started.push(await startApi(common));
  started.push(await startApi(common));
  return [started[0]!, started[1]!];
}

interface Answer {
  status: number;
  code: string | undefined;
  headers: Headers;
}

async function me(server: ServerProcess, apiKey: string): Promise<Answer> {
  const response = await fetch(`${server.url}/api/me`, { headers: { 'x-api-key': apiKey } });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code, headers: response.headers };
}

async function createKey(server: ServerProcess, username: string): Promise<{ apiKey: string; id: string }> {
  const response = await fetch(`${server.url}/api/admin/api-keys`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'app', username }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()) as { apiKey: string; id: string };
}

/**
 * The limits count in fixed minutes of the wall clock. A test whose counts must fall in one minute
 * starts in a fresh one when less than `needed` ms are left; it returns the minute it counts in.
 */
async function oneWindowAhead(needed = 15_000): Promise<number> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < needed) await sleep(left + 50);
  return Math.floor(Date.now() / WINDOW_MS);
}

const currentWindow = () => Math.floor(Date.now() / WINDOW_MS);

describe('several perch api processes on one store', () => {
  it('a key revoked through one process is refused by the other within 5 s', async (t) => {
    const [a, b] = await startPair(t);
    const key = await createKey(a, 'revoked-later');
    // Both processes have checked the key, so both hold it in their key cache.
    assert.equal((await me(b, key.apiKey)).status, 200);
    assert.equal((await me(a, key.apiKey)).status, 200);

    const revoke = await fetch(`${a.url}/api/admin/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: { 'x-api-key': ADMIN_KEY },
    });
    assert.equal(revoke.status, 200);
    const revokedAt = Date.now();
    const onA = await me(a, key.apiKey);
    assert.deepEqual([onA.status, onA.code], [401, 'api_key_revoked'], 'the revoking process refuses the key at once');

    let onB = await me(b, key.apiKey);
    while (onB.status === 200 && Date.now() - revokedAt < 10_000) {
      await sleep(100);
      onB = await me(b, key.apiKey);
    }
    const elapsed = Date.now() - revokedAt;
    assert.deepEqual([onB.status, onB.code], [401, 'api_key_revoked']);
    assert.ok(elapsed <= 5_000, `process B refused the revoked key after ${elapsed} ms`);
  });

  it('holds the per-key rate limit across both processes, and another key keeps its own budget', async (t) => {
    const limit = 30;
    const [a, b] = await startPair(t, { RATE_LIMIT_PER_MINUTE: String(limit) });
    const busy = await createKey(a, 'busy');
    const calm = await createKey(a, 'calm');
    const window = await oneWindowAhead();
    // Each process answers and counts one request of another key first, so that no count below is
    // a cold process's first.
    for (const server of [a, b]) assert.equal((await me(server, calm.apiKey)).status, 200);

    // Twenty rounds, each sending one request to each process at the same time. A count takes
    // milliseconds even on a loaded machine, far below STALL_MS (limits/request-blocks.ts), so every
    // request waits for its place in the shared count and the limit holds exactly. A stall would
    // show in the warnings.
    const answers: Answer[] = [];
    for (let round = 0; round < 20; round += 1)
      answers.push(...(await Promise.all([me(a, busy.apiKey), me(b, busy.apiKey)])));
    assert.equal(currentWindow(), window, 'the requests fell in one window');

    const passed = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    const warnings = [...a.lines, ...b.lines].filter((line) => line.level === 40).map((line) => line.msg);
    assert.equal(passed.length, limit, `exactly ${limit} requests pass (warnings: ${JSON.stringify(warnings)})`);
    // Each passed request saw its own place in the shared count.
    const remaining = passed.map((answer) => Number(answer.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
    assert.deepEqual(
      remaining,
      Array.from({ length: limit }, (_, i) => i),
    );
    for (const answer of refused) {
      assert.deepEqual([answer.status, answer.code], [429, 'rate_limited']);
      const retryAfter = Number(answer.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(answer.headers.get('x-ratelimit-limit'), String(limit));
    }

    for (const server of [a, b])
      assert.equal((await me(server, calm.apiKey)).status, 200, 'another key has its own budget');
  });

  it('throttles the failures of a client whose failed authentications, spread over both processes, reach the limit', async (t) => {
    const [a, b] = await startPair(t, { AUTH_FAILURES_PER_MINUTE: '5' });
    const good = await createKey(a, 'good');
    const window = await oneWindowAhead();
    for (const server of [a, b]) assert.equal((await me(server, good.apiKey)).status, 200);

    // A, B, A, B, A: neither process alone sees five failures.
    for (const server of [a, b, a, b, a]) {
      const answer = await me(server, formatApiKey(randomBytes(32)));
      assert.deepEqual([answer.status, answer.code], [401, 'invalid_api_key']);
    }
    // Both processes now withhold the outcome of bad keys, and both still serve good ones.
    for (const server of [b, a]) {
      const answer = await me(server, formatApiKey(randomBytes(32)));
      assert.deepEqual([answer.status, answer.code], [429, 'too_many_auth_failures']);
      const retryAfter = Number(answer.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    }
    for (const [server, apiKey] of [
      [a, good.apiKey],
      [b, good.apiKey],
      [a, ADMIN_KEY],
    ] as const) {
      assert.equal((await me(server, apiKey)).status, 200, "a valid key is never refused for others' failures");
    }
    assert.equal(currentWindow(), window, 'the requests fell in one window');
  });
});
