// Child process for the import bench: one import of N new usernames, timed, with this process's peak RSS.
// Usage (via runInChild): import-child.ts perch|raw COUNT DIR — sends one ImportChildResult over IPC.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { createConfig } from '../../src/config.ts';
import { systemClock } from '../../src/clock.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { openStore } from '../../src/storage/store.ts';
import { benchUsername, usernameCsv } from './accounts-fixture.ts';

export interface ImportChildResult {
  mode: 'perch' | 'raw';
  totalMs: number;
  /** perch only: reading the CSV into a plan, and writing it. */
  planMs: number | null;
  commitMs: number | null;
  inserted: number;
  rssBeforeBytes: number;
  maxRssBytes: number;
}

const [mode, countText, dir] = process.argv.slice(2);
if ((mode !== 'perch' && mode !== 'raw') || countText === undefined || dir === undefined)
  throw new Error('usage: import-child.ts perch|raw COUNT DIR');
const count = Number(countText);
const dbPath = join(dir, `${mode}.db`);

/** perch's own path: planImport + commitImport, as POST /api/admin/insert and `perch import` run them. */
async function importThroughPerch(): Promise<ImportChildResult> {
  const store = await openStore(`file:${dbPath}`);
  const limits = createConfig({}); // the default MAX_IMPORT_ROWS, MAX_IMPORT_BYTES and DEFAULT_PLATFORM
  const csv = usernameCsv(count);
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

/** The baseline: the same rows, one prepared insert in one transaction, same table and pragmas as the app. */
async function importRaw(): Promise<ImportChildResult> {
  const store = await openStore(`file:${dbPath}`); // perch's migrations create the same schema
  await sql`select 1`.execute(store.reader);
  await store.close();
  const db = new BetterSqlite3(dbPath);
  db.pragma('journal_mode = WAL'); // the pragmas src/storage/dialects/sqlite.ts sets
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const names = Array.from({ length: count }, (_, i) => benchUsername(i + 1));
  const rssBeforeBytes = process.memoryUsage().rss;
  const started = performance.now();
  const now = Date.now();
  const insert = db.prepare(
    `insert into accounts (platform, username, username_key, tags, note, tracked_since, next_check_at, created_at, updated_at)
     values ('x', ?, ?, '[]', null, ?, ?, ?, ?)`,
  );
  let inserted = 0;
  db.transaction(() => {
    for (const name of names) inserted += insert.run(name, name.toLowerCase(), now, now, now, now).changes;
  })();
  const finished = performance.now();
  db.close();
  return {
    mode: 'raw',
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
