// Scale-out on PostgreSQL with real processes: three `perch worker` trackers and two `perch api`
// processes on one database, 20,000 accounts, a rate-limited local X. Every account is checked
// once in the interval, the trackers together never exceed the platform's windows (no 429), and a
// tracker killed with SIGKILL mid-run leaves nothing unchecked once its leases expire.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY } from '../helpers/app.ts';
import { perchProcesses } from '../helpers/perch-processes.ts';
import { dialectName } from '../helpers/store-url.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const N = 20_000;
const WINDOW_MS = 2_000;
const LOOKUPS_PER_WINDOW = 25;
const TIMELINES_PER_WINDOW = 40;

test(
  '3 trackers and 2 API processes on one PostgreSQL share 20,000 accounts within the platform limits, and survive a SIGKILL',
  { skip: dialectName !== 'postgres' && 'scale-out runs on PostgreSQL (TEST_DATABASE_URL)', timeout: 240_000 },
  async (t) => {
    const x = await startFakeX();
    const users = x.addUsers(N, 'user');
    // Every 50th account has posts, so timelines are read (and limited) too.
    for (let i = 0; i < N; i += 50) x.addPost(users[i]!.id, { text: `hello from ${users[i]!.username}` });
    x.setRateLimit('users_by', LOOKUPS_PER_WINDOW, WINDOW_MS);
    x.setRateLimit('tweets', TIMELINES_PER_WINDOW, WINDOW_MS);
    const perch = await perchProcesses(t, [x]);
    const { store } = perch;
    const env = {
      ...perch.env,
      ADMIN_API_KEY: ADMIN_KEY,
      X_API_BASE_URL: x.url,
      X_BEARER_TOKEN: X_TOKEN,
      BLUESKY_API_BASE_URL: 'http://127.0.0.1:9',
      TRACK_INTERVAL: '1h',
      TRACK_LEASE: '20s',
      X_DAILY_READ_BUDGET: '1000000',
      LOG_LEVEL: 'info',
    };

    const [apiA, apiB] = await Promise.all([perch.start('api', env), perch.start('api', env)]);
    const workers = await Promise.all([
      perch.start('worker', env),
      perch.start('worker', env),
      perch.start('worker', env),
    ]);
    const owners = await Promise.all(
      workers.map(async (w) => String((await w.waitForLog((line) => line.msg === 'worker started')).owner)),
    );

    const csv = `username\n${users.map((u) => u.username).join('\n')}\n`;
    const imported = await fetch(`${apiA!.url}/api/admin/insert`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      body: csv,
    });
    assert.equal(imported.status, 200, await imported.text());

    const checked = async () =>
      Number(
        (
          await store.db
            .selectFrom('accounts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('last_checked_at', 'is not', null)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const deadline = Date.now() + 180_000;
    while ((await checked()) < N / 4) {
      assert.ok(Date.now() < deadline, 'a quarter of the accounts not checked in time');
      await delay(100);
    }

    // Kill a tracker mid-batch: the next lookup hangs, and the tracker that sent it is killed while
    // it holds that batch's leases (they stay until they expire).
    x.faults.inject({ kind: 'hang' }, 1, '/2/users/by');
    let victimIndex = -1;
    while (victimIndex < 0) {
      assert.ok(Date.now() < deadline, 'no tracker held a lease');
      // A batch claimed over 4 s ago is the hung one (a normal batch takes a fraction of that).
      const holder = await store.db
        .selectFrom('accounts')
        .select('lease_owner')
        .where('lease_owner', 'is not', null)
        .where('lease_expires_at', '<', Date.now() + 16_000)
        .executeTakeFirst();
      victimIndex = holder ? owners.findIndex((owner) => holder.lease_owner?.startsWith(`${owner}/`)) : -1;
      if (victimIndex < 0) await delay(20);
    }
    const victim = workers[victimIndex]!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    const orphans = await store.db
      .selectFrom('accounts')
      .select('username')
      .where('lease_owner', 'like', `${owners[victimIndex]}/%`)
      .execute();
    const orphaned = new Set(orphans.map((a) => a.username));
    assert.ok(orphaned.size > 0, 'the killed tracker held leases');
    const survivors = owners.filter((_, i) => i !== victimIndex);

    while ((await checked()) < N) {
      assert.ok(Date.now() < deadline, `only ${await checked()} of ${N} accounts checked in time`);
      await delay(250);
    }

    assert.equal(x.tooManyRequests, 0, 'no request went beyond a window');
    // The fake counts every lookup response that carried a user: once each, except accounts the
    // dead tracker had looked up but not written (they were checked again after its lease expired).
    const twice = users.filter((u) => x.lookupsOf(u.id) !== 1);
    for (const user of twice)
      assert.ok(
        orphaned.has(user.username) && x.lookupsOf(user.id) === 2,
        `${user.username} looked up ${x.lookupsOf(user.id)} times`,
      );
    const states = await store.db.selectFrom('accounts').select(['status']).where('status', '<>', 'active').execute();
    assert.deepEqual(states, [], 'every account active');
    const leases = await store.db.selectFrom('accounts').select('id').where('lease_owner', 'is not', null).execute();
    assert.equal(leases.length, 0, 'no lease left behind');

    // Any API process shows the trackers and how they shared the work.
    const health = (await (await fetch(`${apiB!.url}/api/health`)).json()) as {
      role: string;
      checks: { tracker: { trackers: { id: string; state: string; checks: number; role: string }[] } };
    };
    assert.equal(health.role, 'api');
    const listed = new Map(health.checks.tracker.trackers.map((tr) => [tr.id, tr]));
    for (const owner of owners) assert.ok(listed.has(owner), `tracker ${owner} listed`);
    for (const owner of survivors) {
      assert.equal(listed.get(owner)?.state, 'running');
      assert.equal(listed.get(owner)?.role, 'worker');
      assert.ok(
        (listed.get(owner)?.checks ?? 0) > 1_000,
        `tracker ${owner} did its share: ${listed.get(owner)?.checks}`,
      );
    }
    const metrics = await (await fetch(`${apiA!.url}/metrics`)).text();
    for (const owner of survivors)
      assert.match(metrics, new RegExp(`perch_tracker_process_checks\\{tracker="${owner}"[^}]*\\} \\d+`));

    // A worker serves health and metrics, not the API.
    const worker = workers[(victimIndex + 1) % workers.length]!;
    const own = (await (await fetch(`${worker.url}/api/health`)).json()) as {
      role: string;
      checks: { tracker: { running: boolean } };
    };
    assert.equal(own.role, 'worker');
    assert.equal(own.checks.tracker.running, true);
    assert.equal(
      (await fetch(`${worker.url}/api/?username=user1`, { headers: { 'x-api-key': ADMIN_KEY } })).status,
      404,
    );
    assert.match(
      await (await fetch(`${worker.url}/metrics`)).text(),
      /perch_platform_requests_total\{platform="x",endpoint="lookup_by_name",outcome="ok"\} \d+/,
    );
  },
);
