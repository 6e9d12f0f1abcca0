// The `mail` check of /api/health: whether mail is on at all (without SMTP_URL digests are
// previews and nothing is sent), and warn when a message has been due for long or waits unsent.
import { mailQueueState } from '../storage/mail-repo.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';

/** A message due longer than this makes health warn. */
const QUEUE_WARN_AFTER_MS = 10 * 60_000;
const TTL_MS = 5_000;

export interface MailHealth {
  status: 'pass' | 'warn';
  configured: boolean;
  pending: number;
  oldestDueSeconds: number;
  notes?: string[];
}

export function mailHealth(store: Store, clock: Clock, configured: boolean): () => Promise<MailHealth> {
  let cached: { at: number; value: MailHealth } | null = null;
  return async () => {
    const now = clock.now();
    if (cached && now - cached.at < TTL_MS) return cached.value;
    const queue = await mailQueueState(store.reader);
    const overdueMs = queue.oldestDueAt === null ? 0 : Math.max(0, now - queue.oldestDueAt);
    const notes: string[] = [];
    let warn = false;
    if (!configured) {
      notes.push('mail is off (no SMTP_URL): digests are previews only and nothing is sent');
      if (queue.pending > 0) {
        warn = true;
        notes.push(`${queue.pending} message(s) wait in the outbox until SMTP_URL is set`);
      }
    } else if (overdueMs > QUEUE_WARN_AFTER_MS) {
      warn = true;
      notes.push(
        `a message has been due for ${Math.round(overdueMs / 1000)} s: the SMTP server refuses it, or no perch serve or perch worker runs`,
      );
    }
    const value: MailHealth = {
      status: warn ? 'warn' : 'pass',
      configured,
      pending: queue.pending,
      oldestDueSeconds: Math.round(overdueMs / 1000),
      ...(notes.length > 0 ? { notes } : {}),
    };
    cached = { at: now, value };
    return value;
  };
}
