// Bounded growth: every RETENTION_EVERY, rows older than their `*_RETENTION` setting are deleted,
// table by table, in batches of PRUNE_BATCH with a pause between, so the store keeps answering.
// Any process may prune (deletes are idempotent): several processes on one PostgreSQL only repeat
// an empty batch. Add a table to RETAINED (storage/retention-repo.ts) and RETAINED_TABLES (config.ts).
import type { Logger } from 'pino';
import { RETAINED_TABLES, type Config } from '../config.ts';
import { RETAINED, pruneOlderThan } from '../storage/retention-repo.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';

export const PRUNE_BATCH = 1_000;
const RETENTION_EVERY_MS = 10 * 60_000;
/** Pause between two batches: a writer waiting behind one waits at most one batch. */
const BATCH_PAUSE_MS = 50;

export interface PruneReport {
  deleted: Partial<Record<(typeof RETAINED_TABLES)[number], number>>;
}

/** Prunes every retained table once, to the end; a store error stops this round (the next tries again). */
export async function pruneOnce(
  store: Store,
  retention: Config['retention'],
  clock: Clock,
  pause = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<PruneReport> {
  const report: PruneReport = { deleted: {} };
  for (const name of RETAINED_TABLES) {
    const keepMs = retention[name];
    if (keepMs === null) continue;
    const before = clock.now() - keepMs;
    let total = 0;
    for (;;) {
      const deleted = await pruneOlderThan(store.db, RETAINED[name], before, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
      await pause(BATCH_PAUSE_MS);
    }
    report.deleted[name] = total;
  }
  return report;
}

/** Runs `pruneOnce` soon after start and then every 10 minutes until stopped. */
export function startRetention(
  store: Store,
  retention: Config['retention'],
  clock: Clock,
  logger: Logger,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let busy = false;
  const round = () => {
    if (busy) return; // a long round (a first prune of a big table) is not started twice
    busy = true;
    running = pruneOnce(store, retention, clock)
      .then(
        (report) => {
          if (Object.values(report.deleted).some((n) => n > 0))
            logger.info({ deleted: report.deleted }, 'old rows pruned');
        },
        (error: unknown) => logger.warn({ err: error }, 'pruning old rows failed; trying again later'),
      )
      .finally(() => {
        busy = false;
      });
  };
  const first = setTimeout(round, 30_000);
  const timer = setInterval(() => {
    if (!stopped) round();
  }, RETENTION_EVERY_MS);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
