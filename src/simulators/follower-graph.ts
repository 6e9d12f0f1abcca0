// Who follows whom in a local platform: per followed account, its followers newest first (both
// platforms list follower pages so), paged by keyset cursors that stay valid while followers come
// and go. Fast enough for an account with 100,000 followers.

interface Follow {
  seq: number;
  followerId: string;
}

export class FollowerGraph {
  /** Followed id → its follows, oldest first (pages read them from the end). */
  private readonly follows = new Map<string, Follow[]>();
  /** `${followed} ${follower}` → seq of the follow, to find and refuse doubles. */
  private readonly bySeq = new Map<string, number>();
  private seq = 0;

  /** Records the follow; false if it exists already. */
  follow(followerId: string, followedId: string): boolean {
    const key = `${followedId} ${followerId}`;
    if (this.bySeq.has(key)) return false;
    const seq = (this.seq += 1);
    this.bySeq.set(key, seq);
    const list = this.follows.get(followedId) ?? [];
    this.follows.set(followedId, list);
    list.push({ seq, followerId });
    return true;
  }

  /** Removes the follow; false if there was none. */
  unfollow(followerId: string, followedId: string): boolean {
    const key = `${followedId} ${followerId}`;
    const seq = this.bySeq.get(key);
    const list = this.follows.get(followedId);
    if (seq === undefined || !list) return false;
    this.bySeq.delete(key);
    list.splice(firstAtOrAfter(list, seq), 1);
    return true;
  }

  isFollowing(followerId: string, followedId: string): boolean {
    return this.bySeq.has(`${followedId} ${followerId}`);
  }

  count(followedId: string): number {
    return this.follows.get(followedId)?.length ?? 0;
  }

  /**
   * Up to `limit` followers, newest first, older than the follow `before` (a cursor from an earlier
   * page; null: from the newest); `next` is the cursor of the following page, or null at the end.
   */
  page(followedId: string, before: number | null, limit: number): { ids: string[]; next: number | null } {
    const list = this.follows.get(followedId) ?? [];
    let end = before === null ? list.length : firstAtOrAfter(list, before);
    const ids: string[] = [];
    let last: number | null = null;
    while (end > 0 && ids.length < limit) {
      end -= 1;
      const follow = list[end] as Follow;
      ids.push(follow.followerId);
      last = follow.seq;
    }
    return { ids, next: end > 0 ? last : null };
  }
}

/** Index of the first follow whose seq is ≥ `seq` (seqs grow along the list). */
function firstAtOrAfter(list: readonly Follow[], seq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as Follow).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
