// Bench: events and webhooks. (1) The first check of 100,000 X accounts with events on and off, in
// one run (each account gets account.checked_first): the tracker's throughput and the events
// written per second. (2) Webhook deliveries per second from one process to a local receiver.
// Run: npm run bench -- events   (env BENCH_EVENTS_ACCOUNTS, BENCH_DELIVERIES, BENCH_TMPDIR)
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig } from '../src/config.ts';
import type { NewEvent } from '../src/domain/events.ts';
import { createLogger } from '../src/logger.ts';
import { createBlueskyClient } from '../src/platforms/bluesky.ts';
import { createXClient } from '../src/platforms/x.ts';
import { systemClock } from '../src/clock.ts';
import { commitImport, planImport } from '../src/services/import-accounts.ts';
import { createWebhook } from '../src/services/webhooks.ts';
import { recordEvents } from '../src/storage/events-repo.ts';
import { openStore } from '../src/storage/store.ts';
import { trackerSettings } from '../src/tracker/create-tracker.ts';
import { spendPlans } from '../src/limits/spend-plan.ts';
import { Tracker } from '../src/tracker/tracker.ts';
import { createDeliverer } from '../src/webhooks/create-deliverer.ts';
import { startFakeXChild } from './lib/fake-x.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_EVENTS_ACCOUNTS ?? 100_000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const TOKEN = 'bench-x-token';
const SECRET = 'bench-key-hash-secret-0123456789abcdefghijklmnop';

const verdicts: Verdict[] = [];
const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-events-'));
const fake = await startFakeXChild(ACCOUNTS);

async function firstCheck(name: string, events: boolean): Promise<{ rate: number; events: number; seconds: number }> {
  const config = createConfig({
    DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
    KEY_HASH_SECRET: SECRET,
    X_DAILY_READ_BUDGET: '1000000000',
  });
  const store = await openStore(config.databaseUrl);
  const csv = `username\n${Array.from({ length: ACCOUNTS }, (_, i) => `user${i}`).join('\n')}\n`;
  await commitImport(store, await planImport(csv, config), { actor: 'bench', source: 'bench', clock: systemClock });
  const settings = trackerSettings(config);
  const tracker = new Tracker({
    store,
    clients: [
      createXClient({ baseUrl: fake.url, bearerToken: TOKEN }),
      createBlueskyClient({ baseUrl: 'http://127.0.0.1:9' }),
    ],
    clock: systemClock,
    settings: events ? settings : { ...settings, events: null },
    logger: createLogger('warn'),
    spendPlans: spendPlans(config),
  });
  await fake.ask({ type: 'reset' });
  const started = performance.now();
  const report = await tracker.tick();
  const seconds = (performance.now() - started) / 1000;
  const written = Number(
    (
      await store.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', 'account.checked_first')
        .executeTakeFirstOrThrow()
    ).n,
  );
  await tracker.stop(0);
  await store.close();
  return { rate: report.checked / seconds, events: written, seconds };
}

try {
  heading(`First check of ${fmt.int(ACCOUNTS)} X accounts against the local X server, events off then on`);
  const off = await firstCheck('events-off', false);
  figure('events off: accounts checked', `${fmt.int(off.rate)}/s`, `${off.seconds.toFixed(1)} s`);
  const on = await firstCheck('events-on', true);
  figure('events on: accounts checked', `${fmt.int(on.rate)}/s`, `${on.seconds.toFixed(1)} s`);
  figure(
    'events on: events written',
    `${fmt.int(on.events / on.seconds)}/s`,
    `${fmt.int(on.events)} account.checked_first`,
  );
  figure('throughput with events, share of without', fmt.ratio(on.rate / off.rate));
  verdicts.push(target('every first check announced', fmt.int(on.events), fmt.int(ACCOUNTS), on.events === ACCOUNTS));

  heading(`Webhook deliveries: ${fmt.int(DELIVERIES)} events to one local receiver (same machine, keep-alive)`);
  const config = createConfig({
    DATABASE_URL: `file:${join(dir, 'deliveries.db')}`,
    KEY_HASH_SECRET: SECRET,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const store = await openStore(config.databaseUrl);
  let received = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((resolve) => (resolveAll = resolve));
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.end('ok');
      if (++received === DELIVERIES) resolveAll();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await createWebhook(
    { store, clock: systemClock, keyHashSecret: SECRET, allowPrivate: true },
    { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'] },
    'bench',
  );
  for (let i = 0; i < DELIVERIES; i += 1_000) {
    const batch: NewEvent[] = Array.from({ length: Math.min(1_000, DELIVERIES - i) }, (_, j) => ({
      type: 'import.completed',
      accountId: null,
      account: null,
      data: { n: i + j },
    }));
    await store.db.transaction().execute((trx) => recordEvents(trx, store.caps, batch, Date.now()));
  }
  const deliverer = createDeliverer(config, store, createLogger('warn'), SECRET);
  const started = performance.now();
  deliverer.start();
  await all;
  const seconds = (performance.now() - started) / 1000;
  await deliverer.stop();
  figure(
    `deliveries (WEBHOOK_CONCURRENCY ${config.webhookConcurrency})`,
    `${fmt.int(DELIVERIES / seconds)}/s`,
    `${seconds.toFixed(1)} s, signed, each outcome written`,
  );
  verdicts.push(
    target('deliveries per second', `${fmt.int(DELIVERIES / seconds)}/s`, '≥ 500/s', DELIVERIES / seconds >= 500),
  );
  receiver.close();
  await store.close();
  summary(verdicts);
} finally {
  fake.stop();
  await rm(dir, { recursive: true, force: true });
}
