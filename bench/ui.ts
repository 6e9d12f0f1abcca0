// Bench: the dashboard's pages with 1,000,000 stored accounts: server-side render time per page
// (measured at the client on localhost, so it includes HTTP), and bytes transferred (compressed,
// as a browser accepts them) on a first load (page and every asset) and on a later page (assets
// cached: the page only).
// Run: npm run bench -- ui   (env BENCH_ACCOUNTS, BENCH_TMPDIR to vary it)
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import zlib from 'node:zlib';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { benchUsername, DAY, fillCheckedAccounts } from './lib/accounts-fixture.ts';
import { ADMIN_KEY, startPerch, type Server } from './lib/processes.ts';
import { figure, fmt, heading, percentile, summary, target, type Verdict } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1_000_000);
const RUNS = 40;
const WARMUP = 5;
const TARGET_RENDER_MS = 50;
const TARGET_FIRST_KB = 150;
const TARGET_LATER_KB = 30;
const HISTORY_DAYS = 90;

/** 90 days of hourly history for one account, as the tracker would have written it. */
function addHistory(dbPath: string, username: string): void {
  const db = new BetterSqlite3(dbPath);
  try {
    const row = db.prepare('select id from accounts where username_key = ?').get(username) as { id: number };
    const insert = db.prepare(
      'insert into metric_snapshots (account_id, bucket, observed_at, followers, following, posts, listed) values (?, ?, ?, ?, ?, ?, ?)',
    );
    const hour = 3_600_000;
    const start = Math.floor((Date.now() - HISTORY_DAYS * DAY) / hour) * hour;
    db.transaction(() => {
      for (let i = 0; i < HISTORY_DAYS * 24; i += 1)
        insert.run(
          row.id,
          start + i * hour,
          start + i * hour + 60_000,
          10_000 + i * 3 + (i % 17),
          500,
          2_000 + Math.floor(i / 10),
          12,
        );
    })();
  } finally {
    db.close();
  }
}

async function signIn(perch: Server): Promise<string> {
  const response = await fetch(`${perch.url}/ui/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ apiKey: ADMIN_KEY }),
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 303 || !cookie) throw new Error(`sign-in answered ${response.status}`);
  return cookie;
}

/** A GET as a browser sends it (accepting br and gzip): time, bytes on the wire, and the decoded page. */
function get(url: string, cookie: string): Promise<{ ms: number; bytes: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { cookie, 'accept-encoding': 'br, gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const ms = performance.now() - started;
          const raw = Buffer.concat(chunks);
          const encoding = response.headers['content-encoding'];
          const body = (
            encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw
          ).toString('utf8');
          if (response.statusCode !== 200)
            reject(new Error(`${url} answered ${response.statusCode}: ${body.slice(0, 200)}`));
          else resolve({ ms, bytes: raw.length, body });
        });
      })
      .on('error', reject);
  });
}

const first = benchUsername(1);
const PAGES: [string, string][] = [
  ['Overview', '/ui/'],
  ['Accounts', '/ui/accounts'],
  ['Accounts, most followers', '/ui/accounts?sort=-followers'],
  ['Accounts, gained in 7 days, tag', '/ui/accounts?sort=-followersChange7d&tag=bench'],
  ['Accounts, search', '/ui/accounts?q=user00042'],
  ['Accounts, page 2', ''],
  ['Account, 30 days', `/ui/accounts/x/${first}`],
  ['Account, all (2,160 points)', `/ui/accounts/x/${first}?range=all`],
  ['Compare 5, 90 days', `/ui/compare?range=90d&mode=percent&accounts=${[1, 2, 3, 4, 5].map(benchUsername).join(',')}`],
  ['Import', '/ui/import'],
  ['Keys', '/ui/keys'],
];

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-ui-'));
process.once('SIGINT', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
let perch: Server | null = null;
try {
  heading(
    `dashboard pages   ${fmt.int(ACCOUNTS)} accounts, ${RUNS} sequential requests per page after ${WARMUP} warm-up`,
  );
  const dbPath = join(dir, 'perch.db');
  const fillStarted = performance.now();
  await fillCheckedAccounts(dbPath, ACCOUNTS);
  addHistory(dbPath, first);
  figure('store filled (raw inserts, not measured)', fmt.s(performance.now() - fillStarted));
  perch = await startPerch(dbPath);
  const cookie = await signIn(perch);
  const accounts = await get(`${perch.url}/ui/accounts`, cookie);
  const next = /href="(\/ui\/accounts\?[^"]*cursor=[^"]+)" rel="next"/
    .exec(accounts.body)?.[1]
    ?.replaceAll('&amp;', '&');
  if (!next) throw new Error('no next page on /ui/accounts');
  const pages = PAGES.map(([label, path]) => [label, path === '' ? next : path] as const);

  const verdicts: Verdict[] = [];
  let worst = 0;
  let largestLater = 0;
  for (const [label, path] of pages) {
    const url = `${perch.url}${path}`;
    const cold = await get(url, cookie);
    for (let i = 0; i < WARMUP; i += 1) await get(url, cookie);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) times.push((await get(url, cookie)).ms);
    const p95 = percentile(times, 0.95);
    worst = Math.max(worst, p95);
    largestLater = Math.max(largestLater, cold.bytes);
    figure(
      label,
      `p95 ${fmt.ms(p95)}`,
      `p50 ${fmt.ms(percentile(times, 0.5))}, first ${fmt.ms(cold.ms)}, ${fmt.int(cold.bytes)} B sent (${fmt.int(Buffer.byteLength(cold.body))} B of HTML)`,
    );
  }
  verdicts.push(
    target('slowest page render (p95)', fmt.ms(worst), `≤ ${TARGET_RENDER_MS} ms`, worst <= TARGET_RENDER_MS),
  );

  // A first visit loads the heaviest page and every asset it names (the account page: uPlot too).
  const heavy = await get(`${perch.url}/ui/accounts/x/${first}?range=all`, cookie);
  const assets = [...heavy.body.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
  let firstLoad = heavy.bytes;
  for (const asset of assets) firstLoad += (await get(`${perch.url}${asset}`, cookie)).bytes;
  figure(
    'first load: account page and its assets',
    `${fmt.int(firstLoad / 1024)} KB`,
    `${assets.length} assets, as sent (compressed)`,
  );
  verdicts.push(
    target(
      'first load',
      `${fmt.int(firstLoad / 1024)} KB`,
      `≤ ${TARGET_FIRST_KB} KB`,
      firstLoad <= TARGET_FIRST_KB * 1024,
    ),
  );
  verdicts.push(
    target(
      'largest later page (assets cached)',
      `${fmt.int(largestLater / 1024)} KB`,
      `≤ ${TARGET_LATER_KB} KB`,
      largestLater <= TARGET_LATER_KB * 1024,
    ),
  );
  summary(verdicts);
} finally {
  await perch?.stop();
  await rm(dir, { recursive: true, force: true });
}
