// Reading the audit log of admin actions (each action writes its own entry in its transaction).
import { listAudit } from '../storage/audit-repo.ts';
import type { Store } from '../storage/store.ts';

/** The latest `limit` entries, newest first. */
export function listAuditLog(store: Store, limit: number) {
  return listAudit(store.reader, limit);
}
