// Digests (migration 014): their definitions, and the sends claimed per (digest, period end): the
// first process to insert a period's row sends it, every other one's insert conflicts.
import type { Kysely, Selectable } from 'kysely';
import type { AlertScope } from '../domain/alert-rules.ts';
import type { DigestDefinition } from '../domain/digests.ts';
import type { DigestSchedule } from '../domain/digest-schedule.ts';
import { parseJson } from './json-column.ts';
import type { DigestsTable } from './mail-schema.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface DigestRecord extends DigestDefinition {
  id: string;
  createdAt: number;
  updatedAt: number;
}

const toRecord = (row: Selectable<DigestsTable>): DigestRecord => ({
  id: row.id,
  name: row.name,
  scope: parseJson<AlertScope>(row.scope, {}),
  schedule: row.schedule as DigestSchedule,
  at: row.at,
  timeZone: row.time_zone,
  recipients: parseJson<string[]>(row.recipients, []),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const columns = (d: DigestDefinition) => ({
  name: d.name,
  scope: JSON.stringify(d.scope),
  schedule: d.schedule,
  at: d.at,
  time_zone: d.timeZone,
  recipients: JSON.stringify(d.recipients),
});

export async function insertDigest(db: Db, id: string, digest: DigestDefinition, now: number): Promise<void> {
  await db
    .insertInto('digests')
    .values({ id, ...columns(digest), created_at: now, updated_at: now })
    .execute();
}

export async function updateDigest(db: Db, id: string, digest: DigestDefinition, now: number): Promise<boolean> {
  const result = await db
    .updateTable('digests')
    .set({ ...columns(digest), updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteDigest(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('digests').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findDigest(db: Db, id: string): Promise<DigestRecord | null> {
  const row = await db.selectFrom('digests').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** Every digest, oldest first (a deployment has a handful). */
export async function listDigests(db: Db): Promise<DigestRecord[]> {
  const rows = await db.selectFrom('digests').selectAll().orderBy('created_at').orderBy('id').limit(1_000).execute();
  return rows.map(toRecord);
}

export interface DigestSendClaim {
  digestId: string;
  periodStart: number;
  periodEnd: number;
  claimedAt: number;
  late: boolean;
}

/** Claims a period's send; false when another process (or an earlier round) already has. */
export async function claimDigestSend(db: Db, claim: DigestSendClaim): Promise<boolean> {
  const rows = await db
    .insertInto('digest_sends')
    .values({
      digest_id: claim.digestId,
      period_start: claim.periodStart,
      period_end: claim.periodEnd,
      claimed_at: claim.claimedAt,
      late: claim.late ? 1 : 0,
      mail_id: null,
    })
    .onConflict((oc) => oc.columns(['digest_id', 'period_end']).doNothing())
    .returning('digest_id')
    .execute();
  return rows.length > 0;
}

export async function setDigestSendMail(db: Db, digestId: string, periodEnd: number, mailId: number): Promise<void> {
  await db
    .updateTable('digest_sends')
    .set({ mail_id: mailId })
    .where('digest_id', '=', digestId)
    .where('period_end', '=', periodEnd)
    .execute();
}

export interface DigestSendView {
  periodStart: number;
  periodEnd: number;
  claimedAt: number;
  late: boolean;
  mailId: number | null;
}

/** A digest's sends, newest period first. */
export async function listDigestSends(db: Db, digestId: string, limit: number): Promise<DigestSendView[]> {
  const rows = await db
    .selectFrom('digest_sends')
    .selectAll()
    .where('digest_id', '=', digestId)
    .orderBy('period_end', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    periodStart: Number(r.period_start),
    periodEnd: Number(r.period_end),
    claimedAt: Number(r.claimed_at),
    late: r.late === 1,
    mailId: r.mail_id === null ? null : Number(r.mail_id),
  }));
}
