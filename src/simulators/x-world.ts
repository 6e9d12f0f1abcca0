// The scriptable state behind the fake X server: users (by id and by lower-cased name) and their
// posts, changed by tests and the demo the way the platform would change (likes, deletions).
import type { FakeClock } from './fake-kit.ts';
import { FollowerGraph } from './follower-graph.ts';
import type { FakeXPost, FakeXUser, NewXPost, NewXUser, XPostPatch, XUserPatch } from './x-types.ts';

export type { FakeXPost, FakeXUser, FakeXUserState, NewXPost, NewXUser, XPostPatch, XUserPatch } from './x-types.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9_]{1,15}$/;
export const ID_PATTERN = /^[0-9]{1,19}$/;
/** Snowflake ids count milliseconds from this instant (2010-11-04). */
const SNOWFLAKE_EPOCH = 1288834974657n;

export class XWorld {
  readonly usersById = new Map<string, FakeXUser>();
  /** Lower-cased username → id, for active and suspended users (a removed user frees its name). */
  readonly idByName = new Map<string, string>();
  /** Every post still on X, by id (a deleted post leaves this map and its author's timeline). */
  readonly postsById = new Map<string, FakeXPost>();
  /** Who follows whom (`GET /2/users/:id/followers`). */
  readonly graph = new FollowerGraph();
  private nextUserId = 1_000_000_001n;
  private lastPostId = 0n;
  private readonly clock: FakeClock;

  constructor(clock: FakeClock) {
    this.clock = clock;
  }

  addUser(input: NewXUser): FakeXUser {
    if (!USERNAME_PATTERN.test(input.username))
      throw new Error(`fake X: "${input.username}" is not a valid X username`);
    const key = input.username.toLowerCase();
    if (this.idByName.has(key)) throw new Error(`fake X: the username ${input.username} is taken`);
    const id = input.id ?? String(this.nextUserId++);
    if (!ID_PATTERN.test(id) || this.usersById.has(id)) throw new Error(`fake X: user id ${id} is malformed or taken`);
    const user: FakeXUser = {
      id,
      username: input.username,
      name: input.name ?? input.username,
      description: input.description ?? '',
      location: input.location ?? null,
      url: input.url ?? null,
      profileImageUrl: input.profileImageUrl ?? `https://pbs.twimg.com/profile_images/${id}/avatar_normal.jpg`,
      verified: input.verified ?? false,
      protected: input.protected ?? false,
      createdAt: input.createdAt ?? '2015-06-01T12:00:00.000Z',
      followers: input.followers ?? 0,
      following: input.following ?? 0,
      posts: input.posts ?? 0,
      listed: input.listed ?? 0,
      likes: input.likes ?? 0,
      state: 'active',
      timeline: [],
    };
    this.usersById.set(id, user);
    this.idByName.set(key, id);
    return user;
  }

  /** `n` users named `${prefix}0` … `${prefix}${n - 1}`, all sharing `template`. */
  addUsers(n: number, prefix = 'user', template: XUserPatch = {}): FakeXUser[] {
    const users: FakeXUser[] = new Array(n);
    for (let i = 0; i < n; i++) users[i] = this.addUser({ ...template, username: `${prefix}${i}` });
    return users;
  }

  user(id: string): FakeXUser {
    const user = this.usersById.get(id);
    if (!user) throw new Error(`fake X: no user ${id}`);
    return user;
  }

  updateUser(id: string, patch: XUserPatch): FakeXUser {
    const user = this.user(id);
    for (const [key, value] of Object.entries(patch)) if (value !== undefined) Object.assign(user, { [key]: value });
    return user;
  }

  rename(id: string, newName: string): FakeXUser {
    const user = this.user(id);
    const key = newName.toLowerCase();
    if (!USERNAME_PATTERN.test(newName)) throw new Error(`fake X: "${newName}" is not a valid X username`);
    if (this.idByName.has(key) && this.idByName.get(key) !== id)
      throw new Error(`fake X: the username ${newName} is taken`);
    this.idByName.delete(user.username.toLowerCase());
    this.idByName.set(key, id);
    user.username = newName;
    return user;
  }

  suspend(id: string): void {
    this.user(id).state = 'suspended';
  }

  /** Deactivated or deleted: unknown by name and by id from now on. */
  remove(id: string): void {
    const user = this.user(id);
    user.state = 'removed';
    if (this.idByName.get(user.username.toLowerCase()) === id) this.idByName.delete(user.username.toLowerCase());
  }

  /** `followerId` follows `userId`; the counts move as on X. False if it already did. */
  follow(followerId: string, userId: string): boolean {
    const [from, to] = [this.user(followerId), this.user(userId)];
    if (!this.graph.follow(from.id, to.id)) return false;
    from.following += 1;
    to.followers += 1;
    return true;
  }

  /** Undoes follow(); false if there was no such follow. */
  unfollow(followerId: string, userId: string): boolean {
    if (!this.graph.unfollow(followerId, userId)) return false;
    const [from, to] = [this.user(followerId), this.user(userId)];
    from.following = Math.max(0, from.following - 1);
    to.followers = Math.max(0, to.followers - 1);
    return true;
  }

  /** `n` new users `${prefix}0`… who follow `userId`. */
  addFollowers(userId: string, n: number, prefix: string): FakeXUser[] {
    const users = this.addUsers(n, prefix);
    for (const user of users) this.follow(user.id, userId);
    return users;
  }

  /** Finds a user by lower-cased name among the users X still knows. */
  byName(name: string): FakeXUser | undefined {
    const id = this.idByName.get(name.toLowerCase());
    return id === undefined ? undefined : this.usersById.get(id);
  }

  addPost(userId: string, input: NewXPost): FakeXPost {
    const user = this.user(userId);
    const createdAt = input.createdAt ?? new Date(this.clock.now()).toISOString();
    // The retweeted or replied-to post is older than this one, so its id comes first.
    const retweetOf = input.isRepost ? this.nextPostId(Date.parse(createdAt)) : null;
    const replyTo = input.isReply ? this.nextPostId(Date.parse(createdAt)) : null;
    const id = this.nextPostId(Date.parse(createdAt));
    let text = input.text;
    const place = (token: string): number => {
      const at = text.indexOf(token);
      if (at >= 0) return at;
      text += ` ${token}`;
      return text.length - token.length;
    };
    const hashtags = (input.hashtags ?? []).map((tag) => {
      const start = place(`#${tag}`);
      return { start, end: start + tag.length + 1, tag };
    });
    const mentions = (input.mentions ?? []).map((username) => {
      const start = place(`@${username}`);
      return { start, end: start + username.length + 1, username, id: this.byName(username)?.id ?? '1' };
    });
    const urls = (input.urls ?? []).map((expanded, i) => {
      const short = `https://t.co/${id.slice(-6)}${i}`;
      const start = place(short);
      return {
        start,
        end: start + short.length,
        url: short,
        expanded_url: expanded,
        display_url: expanded.replace(/^https?:\/\//, '').slice(0, 26),
      };
    });
    const post: FakeXPost = {
      id,
      authorId: userId,
      text,
      createdAt: new Date(Date.parse(createdAt)).toISOString(),
      likes: input.likes ?? 0,
      reposts: input.reposts ?? 0,
      replies: input.replies ?? 0,
      quotes: input.quotes ?? 0,
      lang: input.lang ?? 'en',
      entities: { hashtags, mentions, urls },
      retweetOf,
      replyTo,
    };
    user.timeline.push(post);
    this.postsById.set(id, post);
    user.posts += 1;
    return post;
  }

  post(id: string): FakeXPost {
    const post = this.postsById.get(id);
    if (!post) throw new Error(`fake X: no post ${id}`);
    return post;
  }

  /** Changes a published post (likes gathered after it was first read, an edit). */
  updatePost(id: string, patch: XPostPatch): FakeXPost {
    const post = this.post(id);
    for (const [key, value] of Object.entries(patch)) if (value !== undefined) Object.assign(post, { [key]: value });
    return post;
  }

  /** The author deletes a post: it leaves the timeline and every lookup, and the post count drops. */
  deletePost(id: string): void {
    const post = this.post(id);
    this.postsById.delete(id);
    const author = this.user(post.authorId);
    author.timeline = author.timeline.filter((p) => p.id !== id);
    author.posts = Math.max(0, author.posts - 1);
  }

  /** Snowflake-like: grows with the creation time, and always strictly increases. */
  private nextPostId(createdAtMs: number): string {
    const fromTime = BigInt(Math.max(0, Math.floor(createdAtMs))) - SNOWFLAKE_EPOCH;
    const candidate = fromTime > 0n ? fromTime << 22n : 0n;
    this.lastPostId = candidate > this.lastPostId ? candidate : this.lastPostId + 1n;
    return this.lastPostId.toString();
  }
}
