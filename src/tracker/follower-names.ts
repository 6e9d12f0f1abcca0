// Followers gained live are known by DID alone (a Jetstream frame names no handle). Each round of
// the follower job asks the platform for the handles of a few of them (one lookup by id, through
// the rate gate and the spend meters like any other), so lists and later events name them within
// a minute instead of at the account's next pass. The rounds walk the unnamed DIDs in id order; one
// the platform does not show (deleted, taken down) is not asked again by this process, while one
// left out for a rate limit or an error is asked at a later round. A pass names them, or keeps the DID.
import { PlatformError } from '../platforms/types.ts';
import { nameFollowers, unnamedFollowers } from '../storage/follower-names-repo.ts';
import type { Logger } from 'pino';
import type { Store } from '../storage/store.ts';
import { GatePacer } from './gate-pacer.ts';
import type { Lane } from './lane.ts';

/** DIDs named per round: one lookup request on Bluesky (getProfiles takes 25 actors)… four. */
const NAMES_PER_ROUND = 100;
/** DIDs the platform said it does not show, kept so they are not asked every round (a bounded set). */
const UNSHOWN_KEPT = 10_000;

/** What a round needs of the follower job. */
export interface NamerDeps {
  store: Store;
  signal: AbortSignal;
  logger: Logger;
}

export class FollowerNamer {
  /** The last DID read: the next round goes on after it. */
  private after = '';
  private readonly unshown = new Set<string>();

  /** Names up to NAMES_PER_ROUND followers of the lane's platform; returns how many rows were named. */
  async round(deps: NamerDeps, lane: Lane): Promise<number> {
    if (lane.client.platform !== 'bluesky') return 0;
    const { store, signal, logger } = deps;
    const read = await unnamedFollowers(store.reader, this.after, NAMES_PER_ROUND);
    // At the end of the list, the next round starts again from the first.
    this.after = read.length < NAMES_PER_ROUND ? '' : (read.at(-1) ?? '');
    const dids = read.filter((did) => !this.unshown.has(did));
    if (dids.length === 0) return 0;
    const reservation = await lane.spend.reserve('users', dids.length, { whole: true });
    if (reservation.granted === 0) return 0;
    const pacer = new GatePacer(lane.gates.lookup_by_id, null, signal);
    let billed = 0;
    try {
      const found = await lane.client.lookupByIds(dids, { signal, pacer });
      billed = found.reads;
      const handles = new Map<string, string>();
      for (const did of dids) {
        const outcome = found.value.get(did);
        if (outcome?.kind === 'found') handles.set(did, outcome.user.username);
        // Not shown, or never a valid actor: not asked again. `unknown` (a rate limit or an error
        // cut the batch short) is asked at a later round.
        else if (outcome && outcome.kind !== 'unknown') this.remember(did);
      }
      // One transaction for the round's names: one turn of the writer, not one per follower.
      return await store.db.transaction().execute((trx) => nameFollowers(trx, handles));
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      billed = error.reads ?? 0;
      // Rate limited or unavailable: the next round asks again.
      logger.debug({ err: error }, 'live followers stay unnamed this round');
      return 0;
    } finally {
      await pacer.finish();
      await lane.spend.settle(reservation, billed);
    }
  }

  private remember(did: string): void {
    if (this.unshown.size >= UNSHOWN_KEPT) this.unshown.clear();
    this.unshown.add(did);
  }
}
