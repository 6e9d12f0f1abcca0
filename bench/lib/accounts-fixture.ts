// Test data for the benches: valid X usernames, CSV text of them, and a fast fill of checked accounts.
import { open } from 'node:fs/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { recountAccounts } from '../../src/storage/account-counts-repo.ts';
import { rebuildTagRows } from '../../src/storage/account-tags-repo.ts';
import { openStore } from '../../src/storage/store.ts';

/** `user0000001` … `user1000000`: valid X names (letters and digits, 11 characters), already lower-case. */
export function benchUsername(i: number): string {
  return `user${String(i).padStart(7, '0')}`;
}

/** `count` bench usernames, in a fixed pseudo-random order (`sorted`: user0000001 first). */
export function benchUsernames(count: number, order: 'random' | 'sorted' = 'sorted'): string[] {
  const names = Array.from({ length: count }, (_, i) => benchUsername(i + 1));
  if (order === 'sorted') return names;
  const random = seededRandom(20_261_129);
  for (let i = names.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [names[i], names[j]] = [names[j] as string, names[i] as string];
  }
  return names;
}

/** A CSV upload of `count` new usernames under a `username` header; random order as real exports come. */
export function usernameCsv(count: number, order: 'random' | 'sorted' = 'sorted'): string {
  return `username\n${benchUsernames(count, order).join('\n')}\n`;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run asks for the same accounts. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface CheckedColumns {
  profile: string;
  metrics: string;
  analysis: string;
  followers: number;
  change7d: number;
}

/** The JSON columns of an account the tracker has checked: profile, metrics and a full analysis (src/domain/analysis.ts, §4). */
function checkedColumns(i: number, now: number): CheckedColumns {
  const followers = 100 + ((i * 7_919) % 250_000);
  const profile = {
    displayName: `Bench User ${i}`,
    description: 'Writes about software, coffee and the occasional bird.',
    location: 'Lisbon, Portugal',
    url: `https://example.com/u/${i}`,
    profileImageUrl: `https://pbs.twimg.com/profile_images/${1_000_000 + i}/avatar_normal.jpg`,
    verified: i % 10 === 0,
    protected: false,
    createdAt: iso(now - (400 + (i % 3_000)) * DAY),
  };
  const metrics = {
    followers,
    following: 50 + (i % 900),
    posts: 1_000 + (i % 40_000),
    listed: i % 70,
    observedAt: iso(now - 600_000),
  };
  const post = (n: number) => {
    const id = String(1_800_000_000_000_000_000n + BigInt(i * 10 + n));
    const likes = 10 * n + (i % 50);
    const reposts = n + (i % 7);
    return {
      id,
      createdAt: iso(now - n * DAY),
      url: `https://x.com/bench/status/${id}`,
      text: `Post ${n} #bench`,
      likes,
      reposts,
      replies: n,
      quotes: n % 2,
      score: likes + 2 * reposts + n,
    };
  };
  const analysis = {
    followers: { change1d: i % 13, change7d: i % 97, change30d: i % 401, growthRate7d: ((i % 97) / followers) * 100 },
    activity: {
      postsPerDay7d: (i % 30) / 7,
      lastPostAt: iso(now - DAY),
      activeHoursUtc: Array.from({ length: 24 }, (_, h) => (i + h) % 9),
    },
    engagement: { avgLikes: 12.5, avgReposts: 2.25, avgReplies: 1.75, engagementRate: 0.85, postsConsidered: 24 },
    content: {
      topHashtags: [
        { tag: 'software', count: 12 },
        { tag: 'coffee', count: 7 },
        { tag: 'birds', count: 3 },
      ],
      topMentions: [{ username: 'alice', count: 4 }],
      topDomains: [{ domain: 'example.com', count: 9 }],
      languages: [
        { lang: 'en', share: 0.9 },
        { lang: 'pt', share: 0.1 },
      ],
      sentiment: { mean: 0.21, positiveShare: 0.46, negativeShare: 0.12, postsScored: 22 },
    },
    topPosts: [1, 2, 3, 4, 5].map(post),
    computedAt: iso(now - 600_000),
    stale: false,
  };
  return {
    profile: JSON.stringify(profile),
    metrics: JSON.stringify(metrics),
    analysis: JSON.stringify(analysis),
    followers,
    change7d: i % 97,
  };
}

/**
 * Building the JSON costs more than inserting it, so the fills share 1,000 variants of it:
 * account `i` gets `variants[i % 1000]`.
 */
export function checkedVariants(now: number): CheckedColumns[] {
  return Array.from({ length: 1_000 }, (_, v) => checkedColumns(v + 1, now));
}

/** What perch's writers keep beside the accounts (tag rows, counts), made again after a raw fill. */
export async function indexTagsAndCounts(dbPath: string): Promise<void> {
  const store = await openStore(`file:${dbPath}`);
  try {
    await store.db.transaction().execute(async (trx) => {
      await rebuildTagRows(trx, store.caps);
      await recountAccounts(trx);
    });
  } finally {
    await store.close();
  }
}

/**
 * Creates the store at `dbPath` through perch's own migrations, then inserts `count` checked X
 * accounts with one raw prepared statement in one transaction (no journal while filling: the file
 * is thrown away if this fails). The rows are what the tracker would have written; their tag rows
 * and counts are made after.
 */
export async function fillCheckedAccounts(
  dbPath: string,
  count: number,
  options: { tags?: (i: number) => readonly string[] } = {},
): Promise<void> {
  const tagsOf = options.tags ?? (() => ['bench']);
  const store = await openStore(`file:${dbPath}`);
  // Touch the reader so that close() really closes it: Kysely only destroys a connection it has used,
  // and an open second connection would stop the journal-mode switch below.
  await sql`select 1`.execute(store.reader);
  await store.close();
  const db = new BetterSqlite3(dbPath);
  try {
    db.pragma('journal_mode = DELETE'); // leaving WAL first: SQLite refuses WAL -> OFF directly
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144'); // 256 MiB, so index pages stay in memory while filling
    const insert = db.prepare(
      `insert into accounts (platform, username, username_key, platform_user_id, status, tags, profile, metrics, analysis,
         followers, followers_change_7d, tracked_since, last_checked_at, next_check_at, created_at, updated_at)
       values ('x', ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const now = Date.now();
    const variants = checkedVariants(now);
    db.transaction(() => {
      for (let i = 1; i <= count; i += 1) {
        const name = benchUsername(i);
        const c = variants[i % variants.length] as CheckedColumns;
        insert.run(
          name,
          name,
          String(10_000_000 + i),
          JSON.stringify(tagsOf(i)),
          c.profile,
          c.metrics,
          c.analysis,
          c.followers,
          c.change7d,
          now - 30 * DAY,
          now - 600_000,
          now + 3_000_000,
          now - 30 * DAY,
          now - 600_000,
        );
      }
    })();
    db.pragma('journal_mode = WAL'); // what the app expects to find
  } finally {
    db.close();
  }
  await indexTagsAndCounts(dbPath);
  // The fill ran without syncing; flush the 2 GB now, or the kernel's writeback would take CPU
  // away from the measured runs half a minute later.
  const handle = await open(dbPath, 'r+');
  await handle.sync();
  await handle.close();
}
