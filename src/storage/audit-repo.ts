// The audit log of admin actions; always written inside the transaction of the action itself.
import type { Kysely } from 'kysely';
import type { AuditAction } from '../domain/audit-actions.ts';
import type { Database } from './schema.ts';

export interface AuditEntry {
  actor: string | null;
  action: AuditAction;
  target: string | null;
  detail?: Record<string, unknown>;
  at: number;
}

export async function writeAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: entry.at,
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      detail: entry.detail ? JSON.stringify(entry.detail) : null,
    })
    .execute();
}

export async function listAudit(db: Kysely<Database>, limit: number) {
  const rows = await db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    at: new Date(r.at).toISOString(),
    actor: r.actor,
    action: r.action,
    target: r.target,
    detail: r.detail === null ? null : (JSON.parse(r.detail) as unknown),
  }));
}
