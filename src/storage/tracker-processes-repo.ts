// Which trackers are alive and how much each has done: every tracker writes a heartbeat row, so
// health and metrics on any process (an API process included) show how the work is shared.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface TrackerBeat {
  owner: string;
  host: string;
  pid: number;
  role: string;
  startedAt: number;
  checks: number;
  batches: number;
}

export interface TrackerProcess extends TrackerBeat {
  seenAt: number;
  stoppedAt: number | null;
}

export async function writeBeat(db: Db, beat: TrackerBeat, now: number): Promise<void> {
  const values = {
    owner: beat.owner,
    host: beat.host,
    pid: beat.pid,
    role: beat.role,
    started_at: beat.startedAt,
    seen_at: now,
    checks: beat.checks,
    batches: beat.batches,
  };
  await db
    .insertInto('tracker_processes')
    .values(values)
    // A beat that arrives after the tracker was marked stopped (a slow store) changes nothing.
    .onConflict((oc) =>
      oc
        .column('owner')
        .doUpdateSet({ seen_at: now, checks: beat.checks, batches: beat.batches })
        .where('tracker_processes.stopped_at', 'is', null),
    )
    .execute();
}

export async function markStopped(db: Db, owner: string, now: number): Promise<void> {
  await db.updateTable('tracker_processes').set({ stopped_at: now, seen_at: now }).where('owner', '=', owner).execute();
}

/** Trackers seen since `since` (running, stopped or lost), newest first. */
export async function recentTrackers(db: Db, since: number): Promise<TrackerProcess[]> {
  const rows = await db
    .selectFrom('tracker_processes')
    .selectAll()
    .where('seen_at', '>=', since)
    .orderBy('started_at', 'desc')
    .limit(100)
    .execute();
  return rows.map((r) => ({
    owner: r.owner,
    host: r.host,
    pid: r.pid,
    role: r.role,
    startedAt: r.started_at,
    seenAt: r.seen_at,
    stoppedAt: r.stopped_at,
    checks: Number(r.checks),
    batches: Number(r.batches),
  }));
}

/** Forgets trackers not seen since `before`. */
export async function pruneTrackers(db: Db, before: number): Promise<void> {
  await db.deleteFrom('tracker_processes').where('seen_at', '<', before).execute();
}
