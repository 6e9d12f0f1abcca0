// Child process for the import bench: one import of N new usernames, timed, with this process's peak RSS.
// Usage (via runInChild): import-child.ts MODE COUNT DIR ORDER — sends one ImportChildResult over IPC.
//   raw        the baseline: one raw better-sqlite3 transaction into a table with one unique
//              COLLATE NOCASE index (platform, username), the app's pragmas
//   raw-perch  the same raw insert into perch's own accounts table, with all its indexes (context)
//   perch      planImport + commitImport, the path POST /api/admin/insert and `perch import` take
// ORDER is random (as real exports come) or sorted (user0000001 first: the kind case).
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { createConfig } from '../../src/config.ts';
import { systemClock } from '../../src/clock.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { openStore } from '../../src/storage/store.ts';
import { benchUsernames } from './accounts-fixture.ts';

export type ImportMode = 'perch' | 'raw' | 'raw-perch';

export interface ImportChildResult {
  mode: ImportMode;
  totalMs: number;
  /** perch only: reading the CSV into a plan, and writing it. */
  planMs: number | null;
  commitMs: number | null;
  inserted: number;
  rssBeforeBytes: number;
  maxRssBytes: number;
}

const [modeArg, countText, dir, order] = process.argv.slice(2);
if (
  (modeArg !== 'perch' && modeArg !== 'raw' && modeArg !== 'raw-perch') ||
  countText === undefined ||
  dir === undefined ||
  (order !== 'random' && order !== 'sorted')
)
  throw new Error('usage: import-child.ts perch|raw|raw-perch COUNT DIR random|sorted');
const mode: ImportMode = modeArg;
const count = Number(countText);
const dbPath = join(dir, `${mode}-${order}.db`);
const names = benchUsernames(count, order);

/** perch's own path: planImport + commitImport, as POST /api/admin/insert and `perch import` run them. */
async function importThroughPerch(): Promise<ImportChildResult> {
  const store = await openStore(`file:${dbPath}`);
  const limits = createConfig({}); // the default MAX_IMPORT_ROWS, MAX_IMPORT_BYTES and DEFAULT_PLATFORM
  const csv = `username\n${names.join('\n')}\n`;
  const rssBeforeBytes = process.memoryUsage().rss;
  const started = performance.now();
  const plan = await planImport(csv, limits);
  const planned = performance.now();
  const report = await commitImport(store, plan, { actor: 'bench', source: 'bench', clock: systemClock });
  const finished = performance.now();
  await sql`select 1`.execute(store.reader); // so close() closes the reader too (Kysely skips unused ones)
  await store.close();
  return {
    mode: 'perch',
    totalMs: finished - started,
    planMs: planned - started,
    commitMs: finished - planned,
    inserted: report.inserted,
    rssBeforeBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/** The same rows, one prepared insert in one transaction, with the app's pragmas. */
async function importRaw(): Promise<ImportChildResult> {
  let insertSql = `insert into accounts (platform, username) values ('x', ?)`;
  if (mode === 'raw-perch') {
    const store = await openStore(`file:${dbPath}`); // perch's migrations create its schema
    await sql`select 1`.execute(store.reader);
    await store.close();
    insertSql = `insert into accounts (platform, username, username_key, tags, note, tracked_since, next_check_at, created_at, updated_at)
      values ('x', ?, ?, '[]', null, ?, ?, ?, ?)`;
  }
  const db = new BetterSqlite3(dbPath);
  db.pragma('journal_mode = WAL'); // the pragmas src/storage/dialects/sqlite.ts sets
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  if (mode === 'raw')
    db.exec(`create table accounts (id integer primary key, platform text not null,
      username text not null collate nocase, unique (platform, username))`);
  const rssBeforeBytes = process.memoryUsage().rss;
  const started = performance.now();
  const now = Date.now();
  const insert = db.prepare(insertSql);
  let inserted = 0;
  db.transaction(() => {
    for (const name of names)
      inserted += (mode === 'raw' ? insert.run(name) : insert.run(name, name, now, now, now, now)).changes;
  })();
  const finished = performance.now();
  db.close();
  return {
    mode,
    totalMs: finished - started,
    planMs: null,
    commitMs: null,
    inserted,
    rssBeforeBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

const result = mode === 'perch' ? await importThroughPerch() : await importRaw();
process.send?.(result);
