// The Jetstream shards' rows (migration 011): how many shards a stream has, who owns each under a
// lease, each shard's cursor (written in the transaction of what its frames produced), its health
// (polling skips the timelines a healthy shard covers) and its open gap.
import { sql, type Kysely } from 'kysely';
import { shardOf } from '../domain/stream-shards.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface StreamShard {
  shard: number;
  shards: number;
  cursorUs: number | null;
  healthyUntil: number | null;
  connectedAt: number | null;
  reconnects: number;
  gaps: number;
  gapFoundAt: number | null;
  gapFromUs: number | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  updatedAt: number;
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export async function readShards(db: Db, stream: string): Promise<StreamShard[]> {
  const rows = await db.selectFrom('stream_shards').selectAll().where('stream', '=', stream).orderBy('shard').execute();
  return rows.map((row) => ({
    shard: Number(row.shard),
    shards: Number(row.shards),
    cursorUs: num(row.cursor_us),
    healthyUntil: num(row.healthy_until),
    connectedAt: num(row.connected_at),
    reconnects: Number(row.reconnects),
    gaps: Number(row.gaps),
    gapFoundAt: num(row.gap_found_at),
    gapFromUs: num(row.gap_from_us),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: num(row.lease_expires_at),
    updatedAt: Number(row.updated_at),
  }));
}

/**
 * Makes the stream have `shards` rows. When the count changes every DID may move to another
 * shard, so each new row starts from the oldest cursor the stream had: frames are replayed
 * rather than lost, and replays change nothing. Returns true when the rows changed.
 */
export async function ensureShards(db: Db, stream: string, shards: number, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const rows = await readShards(trx, stream);
    if (rows.length === shards && rows.every((r) => r.shards === shards)) return false;
    const cursors = rows.flatMap((r) => (r.cursorUs === null ? [] : [r.cursorUs]));
    const oldest = cursors.length > 0 ? Math.min(...cursors) : null;
    await trx.deleteFrom('stream_shards').where('stream', '=', stream).where('shard', '>=', shards).execute();
    await trx
      .updateTable('stream_shards')
      .set({ shards, cursor_us: oldest, gap_found_at: null, gap_from_us: null, updated_at: now })
      .where('stream', '=', stream)
      .execute();
    const missing = Array.from({ length: shards }, (_, shard) => shard).filter((s) => !rows.some((r) => r.shard === s));
    if (missing.length > 0)
      await trx
        .insertInto('stream_shards')
        .values(missing.map((shard) => ({ stream, shard, shards, cursor_us: oldest, updated_at: now })))
        .onConflict((oc) => oc.columns(['stream', 'shard']).doNothing())
        .execute();
    return true;
  });
}

/**
 * Renews the shards `owner` holds, takes free ones until it holds `most` (its fair share), and
 * takes every expired one whatever its share (its owner died: the shard moves within the lease
 * time); returns the shards it holds. Each row is taken by one statement whose condition is
 * checked again on the locked row (PostgreSQL), so two owners never both win one shard.
 */
export async function claimShards(
  db: Db,
  stream: string,
  owner: string,
  now: number,
  leaseMs: number,
  most: number,
): Promise<number[]> {
  await db
    .updateTable('stream_shards')
    .set({ lease_expires_at: now + leaseMs })
    .where('stream', '=', stream)
    .where('lease_owner', '=', owner)
    .execute();
  const held = await heldShards(db, stream, owner);
  for (const row of await readShards(db, stream)) {
    if (row.leaseOwner === owner || (row.leaseOwner !== null && (row.leaseExpiresAt ?? 0) > now)) continue;
    if (row.leaseOwner === null && held.length >= most) continue;
    const taken = await db
      .updateTable('stream_shards')
      .set({ lease_owner: owner, lease_expires_at: now + leaseMs, healthy_until: null })
      .where('stream', '=', stream)
      .where('shard', '=', row.shard)
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<=', now)]))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) > 0) held.push(row.shard);
  }
  return held.sort((a, b) => a - b);
}

async function heldShards(db: Db, stream: string, owner: string): Promise<number[]> {
  const rows = await db
    .selectFrom('stream_shards')
    .select('shard')
    .where('stream', '=', stream)
    .where('lease_owner', '=', owner)
    .execute();
  return rows.map((r) => Number(r.shard));
}

/** Gives the owner's shards back (a clean stop): another owner takes them at once. */
export async function releaseShards(db: Db, stream: string, owner: string): Promise<void> {
  await db
    .updateTable('stream_shards')
    .set({ lease_owner: null, lease_expires_at: null, healthy_until: null })
    .where('stream', '=', stream)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * The shard's cursor, in the transaction of what its frames produced; false (and nothing
 * written) when `owner` no longer holds the shard: the caller rolls the transaction back.
 */
export async function saveCursor(
  trx: Db,
  stream: string,
  shard: number,
  owner: string,
  cursorUs: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('stream_shards')
    .set({
      cursor_us: sql<number>`case when cursor_us > ${cursorUs} then cursor_us else ${cursorUs} end`,
      updated_at: now,
    })
    .where('stream', '=', stream)
    .where('shard', '=', shard)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Where a session of the shard resumes: its cursor, or, the first time, null (live) after the
 * cursor is set to `nowUs`, so that a session cut before its first frame still resumes from
 * when the shard first subscribed.
 */
export async function resumeCursor(
  db: Db,
  stream: string,
  shard: number,
  owner: string,
  nowUs: number,
): Promise<number | null> {
  const row = await db
    .selectFrom('stream_shards')
    .select('cursor_us')
    .where('stream', '=', stream)
    .where('shard', '=', shard)
    .executeTakeFirst();
  if (row?.cursor_us != null) return Number(row.cursor_us);
  await db
    .updateTable('stream_shards')
    .set({ cursor_us: nowUs })
    .where('stream', '=', stream)
    .where('shard', '=', shard)
    .where('lease_owner', '=', owner)
    .where('cursor_us', 'is', null)
    .execute();
  return null;
}

export interface ShardHealthWrite {
  /** Until when polling may skip the shard's timelines; null: the shard is down. */
  healthyUntil: number | null;
  connectedAt?: number | null;
  reconnects?: number;
  gap?: { fromUs: number; foundAt: number } | 'closed';
}

/** The owner's view of the shard's connection, for health, metrics and the tracker on any process. */
export async function writeShardHealth(
  db: Db,
  stream: string,
  shard: number,
  owner: string,
  write: ShardHealthWrite,
  now: number,
): Promise<void> {
  const gap = write.gap;
  await db
    .updateTable('stream_shards')
    .set({
      healthy_until: write.healthyUntil,
      updated_at: now,
      ...(write.connectedAt !== undefined ? { connected_at: write.connectedAt } : {}),
      ...(write.reconnects ? { reconnects: sql<number>`reconnects + ${write.reconnects}` } : {}),
      ...(gap === 'closed' ? { gap_found_at: null, gap_from_us: null } : {}),
      ...(gap && gap !== 'closed'
        ? { gap_found_at: gap.foundAt, gap_from_us: gap.fromUs, gaps: sql<number>`gaps + 1` }
        : {}),
    })
    .where('stream', '=', stream)
    .where('shard', '=', shard)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * The DIDs among `dids` that a healthy shard of the stream covers now (connected, its health fresh,
 * no gap open): polling skips their timelines. Read from the store, so any process's tracker sees
 * the shards of every owner.
 */
export async function coveredDids(db: Db, stream: string, dids: readonly string[], now: number): Promise<Set<string>> {
  const covered = new Set<string>();
  if (dids.length === 0) return covered;
  const rows = await db
    .selectFrom('stream_shards')
    .select(['shard', 'shards'])
    .where('stream', '=', stream)
    .where('healthy_until', '>', now)
    .where('gap_found_at', 'is', null)
    .execute();
  const healthy = new Set(rows.map((r) => `${Number(r.shard)}/${Number(r.shards)}`));
  const shards = Number(rows[0]?.shards ?? 0);
  if (shards === 0) return covered;
  for (const did of dids) if (healthy.has(`${shardOf(did, shards)}/${shards}`)) covered.add(did);
  return covered;
}
