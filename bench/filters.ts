// Bench: filtered first pages and counts at 1,000,000 accounts, over HTTP against perch started as
// the README says: a rare tag, a rare status and a rare username prefix under every sort (the
// matches sit at the far end of each order), a common prefix under every sort (the one filter no
// index orders), and the count endpoint. Baselines in the same run: the same sort's unfiltered
// first page, and the API's one-account lookup.
// Run: npm run bench -- filters   (env BENCH_FILTER_ACCOUNTS, BENCH_TMPDIR to vary it)
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openStore } from '../src/storage/store.ts';
import { benchUsername, indexTagsAndCounts } from './lib/accounts-fixture.ts';
import { createAppKey } from './lib/perch-api.ts';
import { startPerch, type Server } from './lib/processes.ts';
import { figure, fmt, heading, percentile, summary, target, type Verdict } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_FILTER_ACCOUNTS ?? 1_000_000);
const RUNS = 100;
const WARMUP = 5;
const TARGET_MS = 50;
/** The last accounts of the fill are the rare ones: suspended, tagged `rare`, last in every order. */
const RARE = 5;
const SORTS = ['username', '-followers', '-followersChange7d', '-lastCheckedAt'] as const;

/** The rare accounts' names: after every `user…` name, and a prefix (`zz`) no other name has. */
const rareName = (n: number) => `zz_rare${n}`;

/**
 * Fills `count` checked X accounts with raw inserts (the sort columns the tracker writes; no
 * profile), half tagged `common`; the last RARE are suspended, tagged `rare` and `common`, with
 * the smallest numbers and the largest names, so they come last under every sort.
 */
async function fill(dbPath: string, count: number): Promise<void> {
  const store = await openStore(`file:${dbPath}`);
  await sql`select 1`.execute(store.reader);
  await store.close();
  const db = new BetterSqlite3(dbPath);
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const insert = db.prepare(
      `insert into accounts (platform, username, username_key, platform_user_id, status, tags, followers,
         followers_change_7d, tracked_since, last_checked_at, next_check_at, created_at, updated_at)
       values ('x', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const now = Date.now();
    db.transaction(() => {
      for (let i = 1; i <= count; i += 1) {
        const rare = i > count - RARE;
        const name = rare ? rareName(i - (count - RARE)) : benchUsername(i);
        insert.run(
          name,
          name,
          String(10_000_000 + i),
          rare ? 'suspended' : 'active',
          rare ? '["rare","common"]' : i % 2 === 0 ? '["common"]' : '[]',
          rare ? 0 : 100 + ((i * 7_919) % 250_000),
          rare ? -50_000 : ((i * 9_973) % 20_001) - 10_000,
          now - 90 * 86_400_000,
          rare ? now - 60 * 86_400_000 : now - (i % 86_400) * 1_000,
          now + 3_600_000,
          now,
          now,
        );
      }
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  await indexTagsAndCounts(dbPath);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, apiKey: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'x-api-key': apiKey } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}: ${body}`));
          else resolve({ ms: performance.now() - started, body });
        });
      })
      .on('error', reject);
  });
}

/** p50 and p99 of RUNS sequential requests after WARMUP, and the last answer. */
async function measure(perch: Server, apiKey: string, path: string) {
  for (let i = 0; i < WARMUP; i += 1) await get(`${perch.url}${path}`, apiKey);
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < RUNS; i += 1)
    ({ body } = await get(`${perch.url}${path}`, apiKey).then((r) => (times.push(r.ms), r)));
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), body };
}

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-filters-'));
process.once('SIGINT', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
let perch: Server | null = null;
try {
  heading(
    `filtered pages and counts   ${fmt.int(ACCOUNTS)} accounts, ${RUNS} sequential requests each after ${WARMUP} warm-up`,
  );
  const dbPath = join(dir, 'perch.db');
  const fillStarted = performance.now();
  await fill(dbPath, ACCOUNTS);
  figure('store filled (raw inserts, not measured)', fmt.s(performance.now() - fillStarted));
  perch = await startPerch(dbPath, { LOG_LEVEL: 'info' }, { logFile: join(dir, 'perch.log') });
  const apiKey = await createAppKey(perch);
  const verdicts: Verdict[] = [];
  const rareNames = Array.from({ length: RARE }, (_, i) => rareName(i + 1));
  const of = `${RARE} of ${fmt.int(ACCOUNTS)}`;

  const lookup = await measure(perch, apiKey, `/api/?username=${benchUsername(1)}`);
  figure('baseline: one account by name', `p99 ${fmt.ms(lookup.p99)}`, `p50 ${fmt.ms(lookup.p50)}`);
  for (const sort of SORTS) {
    heading(`  sort=${sort}`);
    const base = await measure(perch, apiKey, `/api/?sort=${sort}&limit=50`);
    figure('baseline: unfiltered first page', `p99 ${fmt.ms(base.p99)}`, `p50 ${fmt.ms(base.p50)}`);
    const cases: [string, string, number][] = [
      [`rare tag (${of})`, `tag=rare`, RARE],
      [`rare status (${of})`, `status=suspended`, RARE],
      [`rare prefix (${of})`, `q=zz`, RARE],
      ['common tag with the rare status', `tag=common&status=suspended`, RARE],
    ];
    for (const [label, query, count] of cases) {
      const run = await measure(perch, apiKey, `/api/?${query}&sort=${sort}&limit=50`);
      const page = JSON.parse(run.body) as { data: { username: string }[]; nextCursor: string | null };
      const found = page.data.map((a) => a.username);
      const right = found.length === count && page.nextCursor === null && rareNames.every((n) => found.includes(n));
      if (!right) throw new Error(`${query} ${sort}: ${found.length} accounts, cursor ${page.nextCursor}`);
      verdicts.push(target(`${label}, first page (p99)`, fmt.ms(run.p99), `≤ ${TARGET_MS} ms`, run.p99 <= TARGET_MS));
    }
    // A prefix of a tenth of the names, under a sort that is not the name's: walked in the sort's order.
    const common = await measure(perch, apiKey, `/api/?q=user09&sort=${sort}&limit=50`);
    figure('context: prefix of a tenth of the names', `p99 ${fmt.ms(common.p99)}`, `p50 ${fmt.ms(common.p50)}`);
  }

  heading('  GET /api/accounts/count');
  const counts: [string, string, number, boolean][] = [
    ['everything', '', ACCOUNTS, true],
    ['rare tag', 'tag=rare', RARE, true],
    ['rare status', 'status=suspended', RARE, true],
    ['common tag and status', 'tag=common&status=active', Math.floor((ACCOUNTS - RARE) / 2), true],
    ['rare prefix', 'q=zz', RARE, true],
    ['prefix of a tenth of the names (in the index)', 'q=user09', -1, false],
    ['prefix of every other name (in the index)', 'q=u', ACCOUNTS - RARE, false],
  ];
  for (const [label, query, count, targeted] of counts) {
    const run = await measure(perch, apiKey, `/api/accounts/count?${query}`);
    const answer = (JSON.parse(run.body) as { count: number }).count;
    if (count >= 0 && answer !== count) throw new Error(`count?${query} answered ${answer}, not ${count}`);
    if (targeted)
      verdicts.push(target(`count, ${label} (p99)`, fmt.ms(run.p99), `≤ ${TARGET_MS} ms`, run.p99 <= TARGET_MS));
    else figure(`context: count, ${label}`, `p99 ${fmt.ms(run.p99)}`, `p50 ${fmt.ms(run.p50)}`);
  }
  summary(verdicts);
} finally {
  agent.destroy();
  await perch?.stop();
  await rm(dir, { recursive: true, force: true });
}
