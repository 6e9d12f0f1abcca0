// The scriptable state behind the fake Bluesky AppView: accounts, handles, posts and author feeds,
// kept in Maps (and sorted feeds with keyset cursors) so answering a request is a lookup.
import type { FakeClock } from './fake-kit.ts';
import { base32, cidOf, digest, firstOlder, tidOf } from './bluesky-ids.ts';
import type { BlueskyPost, BlueskyUser, FeedEntry, NewPost, NewUser, PostPatch, UserPatch } from './bluesky-types.ts';
import type { WorldChange } from './bluesky-types.ts';
import { richText } from './bluesky-richtext.ts';

export type { BlueskyPost, BlueskyUser, FeedEntry, NewPost, NewUser, PostPatch, UserPatch } from './bluesky-types.ts';
export { firstOlder } from './bluesky-ids.ts';

export class BlueskyWorld {
  protected readonly users = new Map<string, BlueskyUser>();
  /** Lower-cased handle → did: handles resolve case-insensitively. */
  protected readonly handles = new Map<string, string>();
  protected readonly posts = new Map<string, BlueskyPost>();
  /** did → entries, newest first (by sortAt, then by insertion). */
  protected readonly feeds = new Map<string, FeedEntry[]>();
  private seq = 0;
  private lastTid = 0n;
  private stranger: string | null = null;
  protected readonly clock: FakeClock;
  /** Told of every change a Jetstream would carry (jetstream-world.ts publishes them). */
  readonly changes: ((change: WorldChange) => void)[] = [];

  constructor(clock: FakeClock) {
    this.clock = clock;
  }

  addUser(input: NewUser): BlueskyUser {
    const did = input.did ?? `did:plc:${base32(digest(`user-${(this.seq += 1)}-${input.handle}`), 24)}`;
    if (this.users.has(did)) throw new Error(`${did} already exists`);
    if (this.handles.has(input.handle.toLowerCase())) throw new Error(`${input.handle} is taken`);
    const user: BlueskyUser = {
      did,
      handle: input.handle,
      displayName: input.displayName ?? null,
      description: input.description ?? null,
      avatar: input.avatar ?? null,
      website: input.website ?? null,
      followers: input.followers ?? 0,
      follows: input.follows ?? 0,
      posts: input.posts ?? 0,
      createdAt: input.createdAt ?? new Date(this.clock.now()).toISOString(),
      verified: input.verified ?? null,
      status: 'active',
      labels: [],
      pinned: null,
    };
    this.users.set(did, user);
    this.handles.set(input.handle.toLowerCase(), did);
    this.feeds.set(did, []);
    return user;
  }

  /** `n` users `<prefix><i>.bsky.social`, i from 0. */
  addUsers(n: number, prefix: string): BlueskyUser[] {
    return Array.from({ length: n }, (_, i) => this.addUser({ handle: `${prefix}${i}.bsky.social`, followers: i }));
  }

  user(did: string): BlueskyUser {
    const user = this.users.get(did);
    if (!user) throw new Error(`no user ${did}`);
    return user;
  }

  updateUser(did: string, patch: UserPatch): void {
    const user = Object.assign(this.user(did), patch);
    // Counts are the AppView's own: only the profile record's fields are a commit on the firehose.
    if (['displayName', 'description', 'avatar'].some((key) => key in patch)) this.emit({ kind: 'profile', user });
  }

  /** The old handle stops resolving; the did and posts stay. */
  rename(did: string, newHandle: string): void {
    const user = this.user(did);
    if (this.handles.has(newHandle.toLowerCase())) throw new Error(`${newHandle} is taken`);
    this.handles.delete(user.handle.toLowerCase());
    this.handles.set(newHandle.toLowerCase(), did);
    user.handle = newHandle;
    this.emit({ kind: 'handle', did, handle: newHandle });
  }

  takedown(did: string): void {
    this.setStatus(did, 'takendown');
  }

  deactivate(did: string): void {
    this.setStatus(did, 'deactivated');
  }

  /** Undoes takedown() and deactivate(). */
  restore(did: string): void {
    this.setStatus(did, 'active');
  }

  /** Adds an account label such as `!takedown` (shown on the profile, which is still served). */
  label(did: string, val: string): void {
    this.user(did).labels.push(val);
  }

  pin(did: string, uri: string): void {
    this.user(did).pinned = uri;
  }

  /** Deletes the account: its handle and did become unknown ("Profile not found"). */
  remove(did: string): void {
    const user = this.user(did);
    this.handles.delete(user.handle.toLowerCase());
    this.users.delete(did);
    this.feeds.delete(did);
    this.emit({ kind: 'status', did, status: 'deleted' });
  }

  resolve(actor: string): BlueskyUser | null {
    const did = actor.startsWith('did:') ? actor : this.handles.get(actor.toLowerCase());
    return (did !== undefined && this.users.get(did)) || null;
  }

  /** Adds a post (or a repost) at the top of the user's feed; returns the post (for a repost, the original). */
  addPost(did: string, input: NewPost): BlueskyPost {
    const user = this.user(did);
    if (input.isRepost) {
      const author = input.repostOf ?? this.strangerDid();
      const original = this.addPost(author, { ...input, isRepost: false });
      const rkey = this.nextTid();
      const uri = `at://${did}/app.bsky.feed.repost/${rkey}`;
      const indexedAt = new Date(this.clock.now()).toISOString();
      this.insert(did, {
        sortAt: this.clock.now(),
        seq: (this.seq += 1),
        postUri: original.uri,
        repost: { uri, cid: cidOf(uri), indexedAt },
      });
      this.emit({ kind: 'repost', did, rkey, subject: { uri: original.uri, cid: original.cid }, createdAt: indexedAt });
      return original;
    }
    const rkey = this.nextTid();
    const uri = `at://${did}/app.bsky.feed.post/${rkey}`;
    const { text, facets } = richText(input, (handle) => this.resolve(handle)?.did ?? null);
    const parent =
      input.isReply || input.replyTo
        ? (input.replyTo ?? `at://${this.strangerDid()}/app.bsky.feed.post/${this.nextTid()}`)
        : null;
    const indexedAt = new Date(this.clock.now()).toISOString();
    const post: BlueskyPost = {
      uri,
      cid: cidOf(uri),
      rkey,
      did,
      text,
      createdAt: input.createdAt ?? indexedAt,
      indexedAt,
      likes: input.likes ?? 0,
      reposts: input.reposts ?? 0,
      replies: input.replies ?? 0,
      quotes: input.quotes ?? 0,
      langs: input.langs ?? null,
      facets,
      replyParent: parent,
      replyRoot: parent === null ? null : (this.posts.get(parent)?.replyRoot ?? parent),
    };
    this.posts.set(uri, post);
    user.posts += 1;
    // The AppView sorts by the earlier of createdAt and indexedAt, so a backdated post sinks.
    const sortAt = Math.min(Date.parse(post.createdAt), this.clock.now());
    this.insert(did, { sortAt, seq: (this.seq += 1), postUri: uri, repost: null });
    this.emit({ kind: 'post', post });
    return post;
  }

  post(uri: string): BlueskyPost | null {
    return this.posts.get(uri) ?? null;
  }

  /** Changes a published post's counts (likes gathered after it was first read). */
  updatePost(uri: string, patch: PostPatch): BlueskyPost {
    const post = this.posts.get(uri);
    if (!post) throw new Error(`no post ${uri}`);
    return Object.assign(post, patch);
  }

  /** The author deletes a post: it leaves every feed and getPosts, and postsCount drops. */
  deletePost(uri: string): void {
    const post = this.posts.get(uri);
    if (!post) throw new Error(`no post ${uri}`);
    this.posts.delete(uri);
    for (const [did, feed] of this.feeds)
      this.feeds.set(
        did,
        feed.filter((entry) => entry.postUri !== uri),
      );
    const author = this.users.get(post.did);
    if (author) author.posts = Math.max(0, author.posts - 1);
    this.emit({ kind: 'delete', did: post.did, rkey: post.rkey });
  }

  /** True when every post up the reply chain is the author's own and present (a self-thread). */
  isSelfThread(post: BlueskyPost): boolean {
    let current: BlueskyPost | undefined = post;
    for (let depth = 0; current && depth < 1000; depth += 1) {
      if (current.replyParent === null) return true;
      const parent: BlueskyPost | undefined = this.posts.get(current.replyParent);
      if (!parent || parent.did !== post.did) return false;
      current = parent;
    }
    return false;
  }

  /** The user's own newest posts (not reposts), newest first. */
  recentPosts(did: string, n: number): BlueskyPost[] {
    const posts: BlueskyPost[] = [];
    for (const entry of this.feeds.get(did) ?? []) {
      const post = entry.repost === null ? this.posts.get(entry.postUri) : undefined;
      if (post) posts.push(post);
      if (posts.length >= n) break;
    }
    return posts;
  }

  /** Every user, whatever their state (the demo walks them to make the world change). */
  allUsers(): IterableIterator<BlueskyUser> {
    return this.users.values();
  }

  private setStatus(did: string, status: BlueskyUser['status']): void {
    this.emit({ kind: 'status', did, status: (this.user(did).status = status) });
  }

  protected emit(change: WorldChange): void {
    for (const listener of this.changes) listener(change);
  }

  private insert(did: string, entry: FeedEntry): void {
    const feed = this.feeds.get(did) ?? [];
    this.feeds.set(did, feed);
    feed.splice(firstOlder(feed, entry.sortAt, entry.seq), 0, entry);
  }

  private strangerDid(): string {
    this.stranger ??= this.addUser({ handle: 'stranger.bsky.social', displayName: 'A Stranger' }).did;
    return this.stranger;
  }

  /** TIDs: strictly increasing, from the clock's microseconds (tidOf). */
  protected nextTid(): string {
    const micros = BigInt(this.clock.now()) * 1000n;
    this.lastTid = micros > this.lastTid ? micros : this.lastTid + 1n;
    return tidOf(this.lastTid);
  }
}
