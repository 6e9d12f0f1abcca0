// What a digest reads, in a fixed number of statements whatever the scope's size (no query per
// account): the scope's accounts with their followers and post counts at the three edges of the
// two periods (each the last snapshot at or before the edge: one index seek on the snapshots'
// primary key per account and edge), the engagement of their posts per period (one grouped range
// on posts_by_time), and the period's events, capped.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { AlertScope } from '../domain/alert-rules.ts';
import type { DigestAccountFigures, DigestEvent } from '../domain/digest-content.ts';
import type { DigestPeriod } from '../domain/digest-schedule.ts';
import { parseJson } from './json-column.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
/** The most accounts one digest covers (the bench renders 10,000 within 2 s). */
export const DIGEST_MAX_ACCOUNTS = 50_000;

/** The scope as a condition on `accounts as a` (tracked accounts only). */
function inScope(scope: AlertScope): RawBuilder<SqlBool> {
  const parts = [sql`a.untracked_at is null`];
  if (scope.platform !== undefined) parts.push(sql`a.platform = ${scope.platform}`);
  if (scope.accounts !== undefined) parts.push(sql`a.id in (${sql.join(scope.accounts)})`);
  if (scope.tags !== undefined)
    parts.push(sql`a.id in (select t.account_id from account_tags t where t.tag in (${sql.join(scope.tags)}))`);
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

export async function readDigestFigures(
  db: Db,
  scope: AlertScope,
  period: DigestPeriod,
): Promise<DigestAccountFigures[]> {
  const at = (column: 'followers' | 'posts', edge: number) =>
    db
      .selectFrom('metric_snapshots as s')
      .select(`s.${column}`)
      .where(sql<SqlBool>`s.account_id = a.id`)
      .where('s.bucket', '<=', edge)
      .where('s.observed_at', '<=', edge)
      .orderBy('s.bucket', 'desc')
      .limit(1);
  const rows = await db
    .selectFrom('accounts as a')
    .select([
      'a.id',
      'a.platform',
      'a.username',
      at('followers', period.previousStart).as('f0'),
      at('followers', period.start).as('f1'),
      at('followers', period.end).as('f2'),
      at('posts', period.previousStart).as('p0'),
      at('posts', period.start).as('p1'),
      at('posts', period.end).as('p2'),
    ])
    .where(inScope(scope))
    .orderBy('a.id')
    .limit(DIGEST_MAX_ACCOUNTS)
    .execute();
  const engagement = await db
    .selectFrom('posts as p')
    .innerJoin('accounts as a', 'a.id', 'p.account_id')
    .select([
      'p.account_id',
      sql<number>`sum(case when p.created_at >= ${period.start} then p.likes + p.reposts + p.replies + p.quotes else 0 end)`.as(
        'now',
      ),
      sql<number>`sum(case when p.created_at < ${period.start} then p.likes + p.reposts + p.replies + p.quotes else 0 end)`.as(
        'before',
      ),
    ])
    .where(inScope(scope))
    .where('p.created_at', '>=', period.previousStart)
    .where('p.created_at', '<', period.end)
    .groupBy('p.account_id')
    .execute();
  const byAccount = new Map(engagement.map((e) => [Number(e.account_id), e]));
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => {
    const e = byAccount.get(Number(r.id));
    return {
      id: Number(r.id),
      platform: r.platform,
      username: r.username,
      followers: { previousStart: num(r.f0), start: num(r.f1), end: num(r.f2) },
      posts: { previousStart: num(r.p0), start: num(r.p1), end: num(r.p2) },
      engagement: Number(e?.now ?? 0),
      previousEngagement: Number(e?.before ?? 0),
    };
  });
}

/** The period's events of the scope's accounts, newest first, at most `limit`, and how many there were. */
export async function readDigestEvents(
  db: Db,
  scope: AlertScope,
  period: DigestPeriod,
  limit: number,
): Promise<{ events: DigestEvent[]; total: number }> {
  const base = db
    .selectFrom('events as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .where(inScope(scope))
    .where('e.created_at', '>=', period.start)
    .where('e.created_at', '<', period.end);
  const [rows, count] = await Promise.all([
    base
      .select(['e.type', 'e.created_at', 'e.data'])
      .orderBy('e.created_at', 'desc')
      .orderBy('e.seq', 'desc')
      .limit(limit)
      .execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirst(),
  ]);
  return {
    events: rows.map((r) => ({ type: r.type, createdAt: Number(r.created_at), data: parseJson(r.data, {}) })),
    total: Number(count?.n ?? rows.length),
  };
}
