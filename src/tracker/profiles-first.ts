// Profiles come first: a read of posts (a timeline, a refresh of post metrics) may spend a budget
// only above what the day's remaining profile checks can need, i.e. one user read for every tracked
// account of the platform not billed yet this UTC day. Counted at most once a minute per lane.
import { utcDay } from '../domain/spend.ts';
import { spendRows } from '../storage/spend-repo.ts';
import { countByStatus } from '../storage/tracking-repo.ts';
import type { PlatformLane, TrackerContext } from './context.ts';

const COUNT_TTL_MS = 60_000;

const cache = new WeakMap<PlatformLane, { at: number; day: string; n: number }>();

/** User reads to keep for today's profile checks (0 where the platform has no budget). */
export async function usersLeftToday(ctx: Pick<TrackerContext, 'lane' | 'clock' | 'store'>): Promise<number> {
  const { lane, clock, store } = ctx;
  if (lane.spend.meters.length === 0) return 0;
  const now = clock.now();
  const day = utcDay(now);
  const cached = cache.get(lane);
  if (cached && cached.day === day && now - cached.at < COUNT_TTL_MS) return cached.n;
  const platform = lane.client.platform;
  const [counts, ledger] = await Promise.all([
    countByStatus(store.reader),
    spendRows(store.reader, { from: day, to: day, platform }),
  ]);
  const tracked = counts
    .filter((r) => r.platform === platform && r.status !== 'paused')
    .reduce((sum, r) => sum + r.n, 0);
  const billedToday = ledger.filter((r) => r.kind === 'users').reduce((sum, r) => sum + r.resources, 0);
  const n = Math.max(0, tracked - billedToday);
  cache.set(lane, { at: now, day, n });
  return n;
}
