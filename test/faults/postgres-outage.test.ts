// PostgreSQL going away under a running perch (a restart, a failover, a network cut): the process
// stays up, requests get 503 with Retry-After while the store is gone, 200 again within 10 s of its
// return, the tracker carries on, and an import cut in the middle leaves all of it or none of it.
// The outage is made without restarting the PostgreSQL that other tests share: perch's own backends
// are terminated (57P01, what a restart sends) and a proxy in between refuses connections meanwhile.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { openStore } from '../../src/storage/store.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY } from '../helpers/app.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { POSTGRES_URL, freshStoreUrl } from '../helpers/store-url.ts';
import { X_TOKEN } from '../helpers/tracker.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const skip = POSTGRES_URL === null && 'PostgreSQL outages need TEST_DATABASE_URL';
const OUTAGE_MS = 3_000;
const RECOVERY_MS = 10_000;

interface Outage {
  url: string;
  proxy: TcpProxy;
  /** Terminates perch's backends (57P01) and refuses new connections for `ms`, then lets them in again. */
  run(ms: number): Promise<void>;
}

/** The store's URL routed through a proxy, with an application_name that finds perch's backends. */
async function outageFor(storeUrl: string): Promise<Outage> {
  const direct = new URL(storeUrl);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const name = `perch-fault-${randomBytes(4).toString('hex')}`;
  const routed = new URL(storeUrl);
  routed.hostname = '127.0.0.1';
  routed.port = String(proxy.port);
  routed.searchParams.set('application_name', name);
  return {
    url: routed.toString(),
    proxy,
    async run(ms) {
      const admin = new pg.Client({ connectionString: POSTGRES_URL! });
      await admin.connect();
      try {
        proxy.cut();
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [name]);
      } finally {
        await admin.end();
      }
      await delay(ms);
      proxy.restore();
    },
  };
}

/** Keeps `concurrency` readers busy until stopped, recording each answer's status and when it came. */
function readLoad(url: string, concurrency: number) {
  const answers: { at: number; status: number; retryAfter: string | null }[] = [];
  let running = true;
  const loops = Array.from({ length: concurrency }, async (_, i) => {
    while (running) {
      try {
        const response = await fetch(`${url}/api/?username=fault${i}`, {
          headers: { 'x-api-key': ADMIN_KEY },
          signal: AbortSignal.timeout(20_000),
        });
        await response.arrayBuffer();
        answers.push({ at: Date.now(), status: response.status, retryAfter: response.headers.get('retry-after') });
      } catch {
        answers.push({ at: Date.now(), status: 0, retryAfter: null });
      }
      if (answers.at(-1)?.status !== 200) await delay(50);
    }
  });
  return {
    answers,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

function alive(server: ServerProcess): void {
  assert.equal(server.child.exitCode, null, 'the process is still running');
  assert.equal(server.child.signalCode, null);
}

async function liveAnswers(server: ServerProcess): Promise<void> {
  const live = await fetch(`${server.url}/api/health/live`, { signal: AbortSignal.timeout(10_000) });
  assert.equal(live.status, 200);
}

const baseEnv = (url: string) => ({
  DATABASE_URL: url,
  ADMIN_API_KEY: ADMIN_KEY,
  KEY_HASH_SECRET: 'fault-secret-0123456789abcdefghijklmnop',
  RATE_LIMIT_PER_MINUTE: '100000000',
  KEY_CACHE_TTL: '0',
  DATABASE_POOL_SIZE: '4',
});

describe('PostgreSQL outages', { skip, timeout: 180_000 }, () => {
  it('keeps serving through a restart under read load while the tracker works: 503 during, 200 within 10 s after', async (t) => {
    const location = await freshStoreUrl();
    const outage = await outageFor(location.url);
    const x = await startFakeX();
    const users = x.addUsers(3_000, 'fault');
    // Two lookups a second: the tracker is still working through its batches when the store goes.
    x.setRateLimit('users_by', 2, 1_000);
    const server = await startServer({
      ...baseEnv(outage.url),
      TRACKER: 'on',
      X_API_BASE_URL: x.url,
      X_BEARER_TOKEN: X_TOKEN,
      BLUESKY_API_BASE_URL: 'http://127.0.0.1:9',
      X_DAILY_READ_BUDGET: '1000000',
      TRACK_LEASE: '15s',
    });
    t.after(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      await outage.proxy.close();
      await x.close();
      await location.drop();
    });
    const imported = await fetch(`${server.url}/api/admin/insert`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      body: `username\n${users.map((u) => u.username).join('\n')}\n`,
    });
    assert.equal(imported.status, 200, await imported.text());

    const load = readLoad(server.url, 6);
    await delay(1_000);
    const cutAt = Date.now();
    await outage.run(OUTAGE_MS);
    const restoredAt = Date.now();
    alive(server);
    let recoveredAt = 0;
    while (recoveredAt === 0) {
      assert.ok(Date.now() - restoredAt < RECOVERY_MS + 20_000, 'reads never came back');
      const last = load.answers.filter((a) => a.at > restoredAt && a.status === 200)[0];
      if (last) recoveredAt = last.at;
      else await delay(100);
    }
    await delay(500);
    await load.stop();

    alive(server);
    await liveAnswers(server);
    const during = load.answers.filter((a) => a.at > cutAt + 500 && a.at < restoredAt);
    assert.ok(
      during.some((a) => a.status === 503),
      `503s during the outage (saw ${[...new Set(during.map((a) => a.status))].join(', ')})`,
    );
    for (const answer of load.answers)
      assert.ok([200, 404, 503].includes(answer.status), `only 200, 404 and 503, saw ${answer.status}`);
    for (const answer of load.answers.filter((a) => a.status === 503))
      assert.ok(answer.retryAfter, '503 says when to retry');
    assert.ok(recoveredAt - restoredAt < RECOVERY_MS, `reads came back ${recoveredAt - restoredAt} ms after the store`);
    const lost = server.lines.filter((line) => line.msg === 'store connection lost; it is replaced on the next use');
    assert.ok(lost.length > 0, 'the dropped connections were noticed and logged');

    // The tracker paused through the outage and resumes: every account gets checked (a batch whose
    // results could not be written comes back when its lease, TRACK_LEASE, runs out).
    const store = await openStore(location.url, { migrate: false });
    t.after(() => store.close());
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { n } = await store.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('last_checked_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(n) === 0) break;
      assert.ok(Date.now() < deadline, `${n} accounts never checked after the outage`);
      await delay(250);
    }
    alive(server);
  });

  it('leaves an import cut by the outage all or nothing, and takes the file again afterwards', async (t) => {
    const location = await freshStoreUrl();
    const outage = await outageFor(location.url);
    const server = await startServer(baseEnv(outage.url));
    t.after(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      await outage.proxy.close();
      await location.drop();
    });
    const rows = 200_000;
    const csv = `username\n${Array.from({ length: rows }, (_, i) => `cut${i}`).join('\n')}\n`;
    const send = () =>
      fetch(`${server.url}/api/admin/insert`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
        body: csv,
      });
    const upload = send();
    await server.waitForLog((line) => line.msg === 'import progress', 60_000);
    await outage.run(OUTAGE_MS);
    const cut = await upload;
    assert.ok(
      [200, 503].includes(cut.status),
      `the cut import answers 200 (it committed first) or 503, not ${cut.status}`,
    );
    if (cut.status === 503) assert.ok(cut.headers.get('retry-after'));
    alive(server);

    const store = await openStore(location.url, { migrate: false });
    t.after(() => store.close());
    const { n } = await store.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.ok(Number(n) === 0 || Number(n) === rows, `all or nothing, found ${n}`);
    const imports = await store.db.selectFrom('imports').selectAll().execute();
    assert.equal(imports.length, Number(n) === 0 ? 0 : 1, 'the import record goes with its rows');

    let again = await send();
    const deadline = Date.now() + RECOVERY_MS + 20_000;
    while (again.status === 503 && Date.now() < deadline) {
      await delay(250);
      again = await send();
    }
    const body = await again.text();
    assert.equal(again.status, 200, body);
    const report = JSON.parse(body) as { inserted: number; alreadyTracked: number };
    assert.equal(report.inserted + report.alreadyTracked, rows);
    alive(server);
  });
});
