// The local Bluesky world's follow graph and app.bsky.graph.getFollowers
// (lexicons/app/bsky/graph/getFollowers.json): `{ subject, followers: [profileView], cursor? }`,
// newest follow first, 1-100 a page (50 by default), followers the AppView cannot show left out.
import { DID, HANDLE, xrpcError, type Answer } from './bluesky-xrpc.ts';
import { profileViewBasic } from './bluesky-views.ts';
import { BlueskyWorld, type BlueskyUser } from './bluesky-world.ts';
import { FollowerGraph } from './follower-graph.ts';

/** app.bsky.actor.defs#profileView */
export function profileView(user: BlueskyUser): Record<string, unknown> {
  return {
    ...profileViewBasic(user),
    ...(user.description !== null && { description: user.description }),
    indexedAt: user.createdAt,
  };
}

export class BlueskyFollowWorld extends BlueskyWorld {
  protected readonly graph = new FollowerGraph();
  /** `${follower} ${subject}` → the rkey of the follower's app.bsky.graph.follow record. */
  private readonly followRecords = new Map<string, string>();

  /**
   * `follower` follows `subject` (both dids): counts move as on the AppView, and the follower's
   * follow record is created (on the Jetstream, when linked). False if it already did.
   */
  follow(follower: string, subject: string): boolean {
    const [from, to] = [this.user(follower), this.user(subject)];
    if (!this.graph.follow(from.did, to.did)) return false;
    from.follows += 1;
    to.followers += 1;
    const rkey = this.nextTid();
    this.followRecords.set(`${from.did} ${to.did}`, rkey);
    this.emit({
      kind: 'follow',
      did: from.did,
      rkey,
      subject: to.did,
      createdAt: new Date(this.clock.now()).toISOString(),
    });
    return true;
  }

  /** The rkey of `follower`'s follow record of `subject`, if it follows. */
  followRecord(follower: string, subject: string): string | undefined {
    return this.followRecords.get(`${follower} ${subject}`);
  }

  /** Undoes follow() (the record is deleted); false if there was no such follow. */
  unfollow(follower: string, subject: string): boolean {
    if (!this.graph.unfollow(follower, subject)) return false;
    const rkey = this.followRecords.get(`${follower} ${subject}`);
    this.followRecords.delete(`${follower} ${subject}`);
    if (rkey !== undefined) this.emit({ kind: 'unfollow', did: follower, rkey });
    const from = this.users.get(follower);
    const to = this.users.get(subject);
    if (from) from.follows = Math.max(0, from.follows - 1);
    if (to) to.followers = Math.max(0, to.followers - 1);
    return true;
  }

  /** `n` new users `<prefix><i>.bsky.social` who follow `subject`; fast enough for 100,000. */
  addFollowers(subject: string, n: number, prefix: string): BlueskyUser[] {
    const users = Array.from({ length: n }, (_, i) => this.addUser({ handle: `${prefix}${i}.bsky.social` }));
    for (const user of users) this.follow(user.did, subject);
    return users;
  }

  /** Whether `follower` follows `subject`. */
  follows(follower: string, subject: string): boolean {
    return this.graph.isFollowing(follower, subject);
  }

  protected getFollowers(params: URLSearchParams): Answer {
    const actor = params.get('actor');
    if (actor === null) return xrpcError(400, 'Params must have the property "actor"');
    if (!HANDLE.test(actor) && !DID.test(actor)) return xrpcError(400, 'Params/actor must be a valid did or a handle');
    const rawLimit = params.get('limit') ?? '50';
    if (!/^-?\d+$/.test(rawLimit)) return xrpcError(400, 'Params/limit must be an integer');
    const limit = Number(rawLimit);
    if (limit > 100) return xrpcError(400, 'Params/limit can not be greater than 100');
    if (limit < 1) return xrpcError(400, 'Params/limit can not be less than 1');
    const subject = this.resolve(actor);
    if (!subject || subject.status !== 'active') return xrpcError(400, 'Profile not found');
    const cursor = params.get('cursor');
    let before: number | null = null;
    if (cursor !== null) {
      // The AppView answers a cursor it cannot read with an empty page rather than an error.
      if (!/^[0-9]{1,15}$/.test(cursor)) return { status: 200, body: { subject: profileView(subject), followers: [] } };
      before = Number(cursor);
    }
    const page = this.graph.page(subject.did, before, limit);
    const followers = page.ids
      .map((did) => this.users.get(did))
      .filter((user): user is BlueskyUser => user !== undefined && user.status === 'active')
      .map(profileView);
    const body: Record<string, unknown> = { subject: profileView(subject), followers };
    if (page.next !== null) body.cursor = String(page.next);
    return { status: 200, body };
  }
}
