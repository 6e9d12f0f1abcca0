// Bench: one digest of 10,000 accounts rendered (its reads, the content, HTML and text), against
// a baseline in the same run: reading the same accounts' rows once and serialising them, the floor
// of any per-account summary. Each account has 3 days of hourly snapshots, and the period has
// 1,000 events. Run: npm run bench -- digests   (env BENCH_DIGEST_ACCOUNTS, BENCH_TMPDIR)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/clock.ts';
import { createConfig } from '../src/config.ts';
import type { NewEvent } from '../src/domain/events.ts';
import { renderDigest } from '../src/services/digests.ts';
import { commitImport, planImport } from '../src/services/import-accounts.ts';
import { insertDigest, listDigests } from '../src/storage/digests-repo.ts';
import { recordEvents } from '../src/storage/events-repo.ts';
import { upsertSnapshots } from '../src/storage/history-repo.ts';
import { openStore } from '../src/storage/store.ts';
import { benchUsername } from './lib/accounts-fixture.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_DIGEST_ACCOUNTS ?? 10_000);
const HOUR = 3_600_000;
const END = Date.parse('2026-11-24T07:00:00Z'); // 08:00 in Paris
const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-digests-'));
const verdicts: Verdict[] = [];
try {
  const config = createConfig({ DATABASE_URL: `file:${join(dir, 'perch.db')}`, KEY_HASH_SECRET: 'b'.repeat(40) });
  const store = await openStore(config.databaseUrl);
  const csv = `username,tags\n${Array.from({ length: ACCOUNTS }, (_, i) => `${benchUsername(i)},press`).join('\n')}\n`;
  await commitImport(store, await planImport(csv, config), { actor: 'bench', source: 'bench', clock: systemClock });
  const ids = (await store.db.selectFrom('accounts').select(['id', 'username']).execute()).map((r) => ({
    id: Number(r.id),
    username: r.username,
  }));
  const from = END - 72 * HOUR;
  await store.db.transaction().execute(async (trx) => {
    for (const { id } of ids) {
      const rows = Array.from({ length: 73 }, (_, h) => ({
        accountId: id,
        bucket: from + h * HOUR,
        observedAt: from + h * HOUR,
        followers: 1_000 + ((id * 7 + h * (id % 13)) % 5_000),
        following: 10,
        posts: 100 + Math.floor(h / 5),
        listed: null,
      }));
      await upsertSnapshots(trx, store.caps, rows);
    }
    const events: NewEvent[] = ids.slice(0, 1_000).map(({ id, username }) => ({
      type: 'account.followers_milestone',
      accountId: id,
      account: { id: `acc_${id}`, platform: 'x', username, platformUserId: null },
      data: { milestone: 1_000, followers: 1_001 },
    }));
    await recordEvents(trx, store.caps, events, END - 2 * HOUR);
  });
  await insertDigest(
    store.db,
    'dgst_bench',
    {
      name: 'Bench',
      scope: { tags: ['press'] },
      schedule: 'daily',
      at: '08:00',
      timeZone: 'Europe/Paris',
      recipients: ['a@example.com'],
    },
    from,
  );
  const [digest] = await listDigests(store.db);
  if (!digest) throw new Error('no digest');

  heading(`One daily digest of ${ACCOUNTS.toLocaleString('en')} accounts (SQLite)`);
  const baselineTimes: number[] = [];
  const digestTimes: number[] = [];
  let bytes = 0;
  for (let round = 0; round < 3; round++) {
    let t0 = performance.now();
    const rows = await store.reader
      .selectFrom('accounts')
      .select(['id', 'platform', 'username', 'followers'])
      .execute();
    JSON.stringify(rows);
    baselineTimes.push(performance.now() - t0);
    t0 = performance.now();
    const mail = await renderDigest(store, digest, END, false);
    digestTimes.push(performance.now() - t0);
    bytes = mail.html.length + mail.text.length;
  }
  const best = (values: number[]) => Math.min(...values);
  figure('baseline: the accounts read once and serialised', fmt.ms(best(baselineTimes)), 'best of 3');
  figure(
    'digest: reads, content, HTML and text',
    fmt.ms(best(digestTimes)),
    `best of 3; ${fmt.int(bytes / 1024)} KiB of mail`,
  );
  verdicts.push(
    target('digest of 10,000 accounts rendered', fmt.ms(best(digestTimes)), '≤ 2,000 ms', best(digestTimes) <= 2_000),
  );
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
summary(verdicts);
