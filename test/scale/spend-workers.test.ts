// Three `perch worker` processes on one PostgreSQL share a small daily dollar budget: together they
// never make X bill more than it, and perch's ledger says exactly what X billed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { spendRows } from '../../src/storage/spend-repo.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { createConfig } from '../../src/config.ts';
import { systemClock } from '../../src/clock.ts';
import { perchProcesses } from '../helpers/perch-processes.ts';
import { dialectName } from '../helpers/store-url.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const ACCOUNTS = 600;
const BUDGET_USD = 2.55; // 255 users at $0.010: two whole batches of 100 and part of a third

test(
  'three workers on PostgreSQL never exceed a small dollar budget together, and the ledger equals the bill',
  { skip: dialectName !== 'postgres' && 'runs on PostgreSQL (TEST_DATABASE_URL)', timeout: 180_000 },
  async (t) => {
    const x = await startFakeX();
    const users = x.addUsers(ACCOUNTS, 'payer');
    const perch = await perchProcesses(t, [x]);
    const { store } = perch;
    const env = {
      ...perch.env,
      X_API_BASE_URL: x.url,
      X_BEARER_TOKEN: X_TOKEN,
      BLUESKY_API_BASE_URL: 'http://127.0.0.1:9',
      X_DAILY_BUDGET_USD: String(BUDGET_USD),
      X_DAILY_READ_BUDGET: '1000000',
      // Small batches, so that the three workers reserve against each other many times.
      TRACK_CONCURRENCY: '4',
    };
    const config = createConfig(env);
    const plan = await planImport(`username\n${users.map((u) => u.username).join('\n')}\n`, config);
    await commitImport(store, plan, { actor: 'test', source: 'test', clock: systemClock });

    const workers = await Promise.all([
      perch.start('worker', env),
      perch.start('worker', env),
      perch.start('worker', env),
    ]);
    // Each worker stops when the budget is spent and nothing free is left to re-check.
    await Promise.all(
      workers.map((w) =>
        w.waitForLog((line) => line.msg === 'platform paused' && /dollar budget/.test(String(line.reason)), 120_000),
      ),
    );
    // A batch still in flight settles its reservation into the ledger when it ends.
    const today = new Date().toISOString().slice(0, 10);
    const ledgerUsers = async () =>
      (await spendRows(store.db, { from: today, to: today, platform: 'x' })).reduce((n, r) => n + r.resources, 0);
    const deadline = Date.now() + 30_000;
    while ((await ledgerUsers()) < (x.bill().get(today)?.users ?? 0) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const bill = x.bill().get(today) ?? { users: 0, posts: 0 };
    const billedUsd = bill.users * 0.01 + bill.posts * 0.005;
    assert.ok(billedUsd <= BUDGET_USD + 1e-9, `X billed $${billedUsd}, over the $${BUDGET_USD} budget`);
    assert.ok(bill.users >= 200, `the budget was used: ${bill.users} users billed`);
    const ledger = await spendRows(store.db, { from: today, to: today, platform: 'x' });
    assert.deepEqual(
      ledger.map((r) => [r.kind, r.resources, r.micros]),
      [['users', bill.users, bill.users * 10_000]],
    );
    const lookedUp = x.requests.filter((r) => r.path === '/2/users/by').length;
    assert.ok(lookedUp >= 3, `several lookups (${lookedUp})`);
  },
);
