// Follower passes (DESIGN §11) in the store: a pass marks each page's followers as seen by its
// number and keeps the platform's cursor in the same transaction, so a crash resumes at the last
// written page and nothing is counted twice; closing the pass turns the marks into the diff with a
// few statements (unseen current rows are gone, new ones gained). Until it closes, nothing shows:
// new rows are pending (first_seen null) and marks are invisible to the readers.
import { sql, type Kysely } from 'kysely';
import { distinctFollowers, FOLLOWER_SAMPLE, type FollowerDiff, type FollowerIdentity } from '../domain/followers.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** A pass being run: where it is. */
export interface OpenPass {
  accountId: number;
  passId: number;
  /** The platform's cursor of the next page; null: the first page. */
  cursor: string | null;
  startedAt: number;
  pages: number;
  seen: number;
  /** The account has a finished pass before this one (else this one is the baseline). */
  hasBaseline: boolean;
}

/**
 * The account's running pass, or a new one when none runs. A pass older than `staleAfterMs` is
 * given up and started again (its marks are outdated by then; its pending rows go at the next close).
 */
export async function openPass(db: Db, accountId: number, now: number, staleAfterMs: number): Promise<OpenPass> {
  const row = await db.selectFrom('follower_passes').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  if (row && row.started_at !== null && now - Number(row.started_at) < staleAfterMs)
    return {
      accountId,
      passId: Number(row.pass_id),
      cursor: row.cursor,
      startedAt: Number(row.started_at),
      pages: Number(row.pages),
      seen: Number(row.seen),
      hasBaseline: row.finished_at !== null,
    };
  const passId = row ? Number(row.pass_id) + 1 : 1;
  const fresh = { pass_id: passId, cursor: null, started_at: now, pages: 0, seen: 0, last_error: null };
  await db
    .insertInto('follower_passes')
    .values({ account_id: accountId, next_at: now, ...fresh })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(fresh))
    .execute();
  return { accountId, passId, cursor: null, startedAt: now, pages: 0, seen: 0, hasBaseline: row?.finished_at != null };
}

/**
 * Marks one page's followers as seen by the pass and moves its cursor on (call it inside one
 * transaction). Returns false when the pass is no longer the account's running one. `askedAt`, when
 * the page was asked for: a follower the stream saw leave since then is not marked (the page is
 * older than their unfollow, so the close must not take them for back).
 */
export async function recordFollowerPage(
  db: Db,
  caps: DialectCapabilities,
  pass: Pick<OpenPass, 'accountId' | 'passId'>,
  page: readonly FollowerIdentity[],
  nextCursor: string | null,
  askedAt = Number.POSITIVE_INFINITY,
): Promise<boolean> {
  const moved = await db
    .updateTable('follower_passes')
    .set((eb) => ({ cursor: nextCursor, pages: eb('pages', '+', 1), seen: eb('seen', '+', page.length) }))
    .where('account_id', '=', pass.accountId)
    .where('pass_id', '=', pass.passId)
    .where('started_at', 'is not', null)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0) return false;
  const rows = distinctFollowers(page).map((f) => ({
    account_id: pass.accountId,
    follower_id: f.platformUserId,
    handle: f.username,
    first_seen: null,
    gained_at: null,
    gone_at: null,
    seen_pass: pass.passId,
    pass_handle: f.username,
  }));
  const chunk = Math.max(1, Math.floor(Math.min(caps.maxParameters, 8_000) / 8));
  for (let i = 0; i < rows.length; i += chunk)
    await db
      .insertInto('followers')
      .values(rows.slice(i, i + chunk))
      .onConflict((oc) => {
        const update = oc.columns(['account_id', 'follower_id']).doUpdateSet((eb) => ({
          seen_pass: eb.ref('excluded.seen_pass'),
          pass_handle: eb.ref('excluded.pass_handle'),
        }));
        return Number.isFinite(askedAt)
          ? update.where((eb) => eb.or([eb('followers.gone_at', 'is', null), eb('followers.gone_at', '<', askedAt)]))
          : update;
      })
      .execute();
  return true;
}

/** Rows the pass saw that are not current followers (new, or back after leaving). */
const isGain = (passId: number) => sql<boolean>`seen_pass = ${passId} and (first_seen is null or gone_at is not null)`;
/** Current followers the pass did not see. */
const isLoss = (passId: number) => sql<boolean>`first_seen is not null and gone_at is null and seen_pass <> ${passId}`;

/**
 * Turns the pass's marks into the diff at `now` (call it inside the transaction that also writes
 * the event): who left gets `gone_at`, who is new gets `first_seen`/`gained_at` (none for the
 * baseline), pending rows of a pass given up are removed, and the pass is finished.
 */
export async function closePass(db: Db, pass: OpenPass, now: number, nextAt: number): Promise<FollowerDiff> {
  const { accountId, passId } = pass;
  const ofAccount = db.selectFrom('followers').where('account_id', '=', accountId);
  const sample = (condition: ReturnType<typeof isGain>) =>
    ofAccount
      .select(['follower_id', sql<string>`coalesce(pass_handle, handle)`.as('handle')])
      .where(condition)
      .orderBy('follower_id')
      .limit(FOLLOWER_SAMPLE)
      .execute();
  const count = async (condition: ReturnType<typeof isGain>) =>
    Number(
      (
        await ofAccount
          .select((eb) => eb.fn.countAll().as('n'))
          .where(condition)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const identity = (r: { follower_id: string; handle: string }): FollowerIdentity => ({
    platformUserId: r.follower_id,
    username: r.handle,
  });
  const baseline = !pass.hasBaseline;
  const [gained, lost, gainedCount, lostCount] = baseline
    ? [[], [], 0, 0]
    : await Promise.all([sample(isGain(passId)), sample(isLoss(passId)), count(isGain(passId)), count(isLoss(passId))]);

  const update = () => db.updateTable('followers').where('account_id', '=', accountId);
  await update().set({ gone_at: now }).where(isLoss(passId)).execute();
  await update()
    .set({
      first_seen: sql`coalesce(first_seen, ${now})`,
      gained_at: baseline ? null : now,
      gone_at: null,
      handle: sql`coalesce(pass_handle, handle)`,
    })
    .where(isGain(passId))
    .execute();
  await update()
    .set({ handle: sql`pass_handle` })
    .where('seen_pass', '=', passId)
    .where(sql<boolean>`pass_handle <> handle`)
    .execute();
  await db
    .deleteFrom('followers')
    .where('account_id', '=', accountId)
    .where('first_seen', 'is', null)
    .where('seen_pass', '<>', passId)
    .execute();
  const followers = Number(
    (
      await ofAccount
        .select((eb) => eb.fn.countAll().as('n'))
        .where('gone_at', 'is', null)
        .where('first_seen', 'is not', null)
        .executeTakeFirstOrThrow()
    ).n,
  );
  await db
    .updateTable('follower_passes')
    .set({ started_at: null, cursor: null, finished_at: now, followers, next_at: nextAt, last_error: null })
    .where('account_id', '=', accountId)
    .where('pass_id', '=', passId)
    .execute();
  return { gained: gained.map(identity), lost: lost.map(identity), gainedCount, lostCount, followers, baseline };
}

/** Gives the running pass up (the account is gone, or its cursor is refused): the next one starts afresh. */
export async function abandonPass(db: Db, accountId: number): Promise<void> {
  await db
    .updateTable('follower_passes')
    .set({ started_at: null, cursor: null, pages: 0, seen: 0 })
    .where('account_id', '=', accountId)
    .execute();
}

/** When the account last had `account.followers_changed`, or null. */
export async function lastFollowerEventAt(db: Db, accountId: number): Promise<number | null> {
  const row = await db
    .selectFrom('follower_passes')
    .select('last_event_at')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.last_event_at == null ? null : Number(row.last_event_at);
}

export async function noteFollowerEvent(db: Db, accountId: number, at: number): Promise<void> {
  await db.updateTable('follower_passes').set({ last_event_at: at }).where('account_id', '=', accountId).execute();
}
