// Bounded growth: every RETENTION_EVERY, rows older than their `*_RETENTION` setting are deleted,
// table by table, in batches of PRUNE_BATCH with a pause between, so the store keeps answering.
// Any process may prune (deletes are idempotent): several processes on one PostgreSQL only repeat
// an empty batch. Add a table to RETAINED (storage/retention-repo.ts) and RETAINED_TABLES (config.ts).
// Events are one of them (EVENT_RETENTION): those an endpoint still has to receive are kept.
import type { Logger } from 'pino';
import { RETAINED_TABLES, type Config } from '../config.ts';
import { RETAINED } from '../storage/retention-repo.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import { every, type Every } from '../every.ts';

export const PRUNE_BATCH = 1_000;
const RETENTION_EVERY_MS = 10 * 60_000;
const FIRST_AFTER_MS = 30_000;
/** Pause between two batches: a writer waiting behind one waits at most one batch. */
const BATCH_PAUSE_MS = 50;

export interface PruneReport {
  /** Rows deleted under each setting (for events: events and attempts-log rows). */
  deleted: Partial<Record<(typeof RETAINED_TABLES)[number], number>>;
}

/**
 * Prunes every retained table once, to the end, or until `stopping` aborts (between batches: a
 * first prune of a big table must not hold a shutdown); a store error stops this round (the next
 * tries again).
 */
export async function pruneOnce(
  store: Store,
  retention: Config['retention'],
  clock: Clock,
  pause = (ms: number) => new Promise((r) => setTimeout(r, ms)),
  stopping?: AbortSignal,
): Promise<PruneReport> {
  const report: PruneReport = { deleted: {} };
  for (const name of RETAINED_TABLES) {
    const keepMs = retention[name];
    if (keepMs === null) continue;
    const before = clock.now() - keepMs;
    let total = 0;
    for (const prune of RETAINED[name]) {
      for (let more = true; more && !stopping?.aborted;) {
        const deleted = await prune(store.db, before, PRUNE_BATCH);
        total += deleted;
        more = deleted >= PRUNE_BATCH;
        if (more) await pause(BATCH_PAUSE_MS);
      }
    }
    report.deleted[name] = total;
  }
  return report;
}

export interface RetentionSchedule {
  /** Delay before the first round (FIRST_AFTER_MS: a starting process has other things to do first). */
  firstAfterMs?: number;
  /** Time between rounds (RETENTION_EVERY_MS). */
  everyMs?: number;
}

/** Runs `pruneOnce` soon after start and then every 10 minutes until stopped (a long round is never doubled). */
export function startRetention(
  store: Store,
  retention: Config['retention'],
  clock: Clock,
  logger: Logger,
  schedule: RetentionSchedule = {},
): Every {
  return every(
    schedule.everyMs ?? RETENTION_EVERY_MS,
    async (stopping) => {
      const report = await pruneOnce(store, retention, clock, undefined, stopping);
      if (Object.values(report.deleted).some((n) => n > 0)) logger.info({ deleted: report.deleted }, 'old rows pruned');
    },
    {
      firstAfterMs: schedule.firstAfterMs ?? FIRST_AFTER_MS,
      onError: (error) => logger.warn({ err: error }, 'pruning old rows failed; trying again later'),
    },
  );
}
