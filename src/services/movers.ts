// The Overview's movers and its followers-over-time totals: the accounts that gained and lost most
// over a day and a week (absolute, with the % growth beside it), and the total followers of all
// tracked accounts or of one tag, day by day. Both read indexed, kept data (storage/movers-repo.ts,
// storage/follower-totals-repo.ts).
import { ALL_ACCOUNTS, knownTags } from '../storage/account-counts-repo.ts';
import { followerTotalsSince, type TotalPoint } from '../storage/follower-totals-repo.ts';
import { topMovers, type Mover, type MoverDirection, type MoverWindow } from '../storage/movers-repo.ts';
import type { ServiceDeps } from './context.ts';

export type { MoverDirection, MoverWindow };

export interface RankedMover extends Mover {
  /** The change as % of the followers before it, 2 decimals; null when there were none before. */
  percent: number | null;
}

export interface MoverList {
  window: MoverWindow;
  direction: MoverDirection;
  movers: RankedMover[];
}

/** change / followers-before × 100, 2 decimals; null when followers-before is 0 or less. */
export function growthPercent(followers: number, change: number): number | null {
  const before = followers - change;
  return before > 0 ? Math.round((change / before) * 10_000) / 100 : null;
}

/** Gainers and losers over 24 hours and 7 days, `limit` each, biggest first. */
export async function readMovers(deps: ServiceDeps, limit: number): Promise<MoverList[]> {
  const lists: [MoverWindow, MoverDirection][] = [
    ['1d', 'up'],
    ['1d', 'down'],
    ['7d', 'up'],
    ['7d', 'down'],
  ];
  return Promise.all(
    lists.map(async ([window, direction]) => ({
      window,
      direction,
      movers: (await topMovers(deps.store.reader, window, direction, limit)).map((m) => ({
        ...m,
        percent: growthPercent(m.followers, m.change),
      })),
    })),
  );
}

/** Total followers of the tracked accounts of `tag` (all of them when null), per day since `from`. */
export function followerTotals(deps: ServiceDeps, tag: string | null, from: number): Promise<TotalPoint[]> {
  return followerTotalsSince(deps.store.reader, tag ?? ALL_ACCOUNTS, from);
}

/** The tags tracked accounts carry, for the chart's choice. */
export function trackedTags(deps: ServiceDeps): Promise<string[]> {
  return knownTags(deps.store.reader);
}
