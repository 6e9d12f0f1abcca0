// The scriptable state behind the fake X server: users (by id and by lower-cased name), their
// posts, and how each renders in X API v2's wire format for the fields a request asks for.
import type { FakeClock } from './fake-kit.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9_]{1,15}$/;
export const ID_PATTERN = /^[0-9]{1,19}$/;
/** Snowflake ids count milliseconds from this instant (2010-11-04). */
const SNOWFLAKE_EPOCH = 1288834974657n;

export type FakeXUserState = 'active' | 'suspended' | 'removed';

export interface FakeXUser {
  id: string;
  username: string;
  name: string;
  description: string;
  location: string | null;
  url: string | null;
  profileImageUrl: string;
  verified: boolean;
  protected: boolean;
  /** ISO 8601. */
  createdAt: string;
  followers: number;
  following: number;
  /** `tweet_count` (or `post_count`); addPost bumps it. */
  posts: number;
  listed: number;
  likes: number;
  state: FakeXUserState;
  /** Oldest first; ids strictly increasing. */
  timeline: FakeXPost[];
}

export interface NewXUser {
  id?: string;
  username: string;
  name?: string;
  description?: string;
  location?: string | null;
  url?: string | null;
  profileImageUrl?: string;
  verified?: boolean;
  protected?: boolean;
  createdAt?: string;
  followers?: number;
  following?: number;
  posts?: number;
  listed?: number;
  likes?: number;
}

export type XUserPatch = Partial<Omit<NewXUser, 'id' | 'username'>>;

export interface NewXPost {
  text: string;
  createdAt?: string;
  likes?: number;
  reposts?: number;
  replies?: number;
  quotes?: number;
  /** Without `#`; appended to the text when it does not already contain them. */
  hashtags?: string[];
  /** Without `@`; appended to the text when missing. */
  mentions?: string[];
  /** Full URLs; the text gets a t.co link for each, as X rewrites links. */
  urls?: string[];
  isRepost?: boolean;
  isReply?: boolean;
  lang?: string;
}

export interface FakeXPost {
  id: string;
  authorId: string;
  text: string;
  createdAt: string;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  lang: string;
  entities: {
    hashtags: { start: number; end: number; tag: string }[];
    mentions: { start: number; end: number; username: string; id: string }[];
    urls: { start: number; end: number; url: string; expanded_url: string; display_url: string }[];
  };
  /** The retweeted post's id, when this is a retweet. */
  retweetOf: string | null;
  /** The replied-to post's id, when this is a reply. */
  replyTo: string | null;
}

export class XWorld {
  readonly usersById = new Map<string, FakeXUser>();
  /** Lower-cased username → id, for active and suspended users (a removed user frees its name). */
  readonly idByName = new Map<string, string>();
  private nextUserId = 1_000_000_001n;
  private lastPostId = 0n;
  private readonly clock: FakeClock;

  constructor(clock: FakeClock) {
    this.clock = clock;
  }

  addUser(input: NewXUser): FakeXUser {
    if (!USERNAME_PATTERN.test(input.username)) throw new Error(`fake X: "${input.username}" is not a valid X username`);
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
    if (this.idByName.has(key) && this.idByName.get(key) !== id) throw new Error(`fake X: the username ${newName} is taken`);
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
      return { start, end: start + short.length, url: short, expanded_url: expanded, display_url: expanded.replace(/^https?:\/\//, '').slice(0, 26) };
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
    user.posts += 1;
    return post;
  }

  /** Snowflake-like: grows with the creation time, and always strictly increases. */
  private nextPostId(createdAtMs: number): string {
    const fromTime = BigInt(Math.max(0, Math.floor(createdAtMs))) - SNOWFLAKE_EPOCH;
    const candidate = fromTime > 0n ? fromTime << 22n : 0n;
    this.lastPostId = candidate > this.lastPostId ? candidate : this.lastPostId + 1n;
    return this.lastPostId.toString();
  }
}

/** A user as X v2 renders it: `id`, `name`, `username` always, the rest only when asked for. */
export function userJson(user: FakeXUser, fields: ReadonlySet<string>, postCountField: 'tweet_count' | 'post_count'): Record<string, unknown> {
  const out: Record<string, unknown> = { id: user.id, name: user.name, username: user.username };
  if (fields.has('created_at')) out.created_at = user.createdAt;
  if (fields.has('description')) out.description = user.description;
  // X leaves location out when the user set none, but always sends url (possibly "").
  if (fields.has('location') && user.location !== null) out.location = user.location;
  if (fields.has('url')) out.url = user.url ?? '';
  if (fields.has('profile_image_url')) out.profile_image_url = user.profileImageUrl;
  if (fields.has('verified')) out.verified = user.verified;
  if (fields.has('protected')) out.protected = user.protected;
  if (fields.has('public_metrics')) {
    out.public_metrics = {
      followers_count: user.followers,
      following_count: user.following,
      [postCountField]: user.posts,
      listed_count: user.listed,
      like_count: user.likes,
    };
  }
  return out;
}

/** A post as X v2 renders it: `id`, `text`, `edit_history_tweet_ids` always, the rest when asked for. */
export function postJson(post: FakeXPost, fields: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = { id: post.id, text: post.text, edit_history_tweet_ids: [post.id] };
  if (fields.has('created_at')) out.created_at = post.createdAt;
  if (fields.has('lang')) out.lang = post.lang;
  if (fields.has('author_id')) out.author_id = post.authorId;
  if (fields.has('public_metrics')) {
    out.public_metrics = { retweet_count: post.reposts, reply_count: post.replies, like_count: post.likes, quote_count: post.quotes, bookmark_count: 0, impression_count: 0 };
  }
  const { hashtags, mentions, urls } = post.entities;
  // X omits `entities` (and each empty kind) when a post has none.
  if (fields.has('entities') && hashtags.length + mentions.length + urls.length > 0) {
    const entities: Record<string, unknown> = {};
    if (hashtags.length > 0) entities.hashtags = hashtags;
    if (mentions.length > 0) entities.mentions = mentions;
    if (urls.length > 0) entities.urls = urls;
    out.entities = entities;
  }
  const references = [
    ...(post.retweetOf !== null ? [{ type: 'retweeted', id: post.retweetOf }] : []),
    ...(post.replyTo !== null ? [{ type: 'replied_to', id: post.replyTo }] : []),
  ];
  if (fields.has('referenced_tweets') && references.length > 0) out.referenced_tweets = references;
  if (fields.has('in_reply_to_user_id') && post.replyTo !== null) out.in_reply_to_user_id = '1';
  return out;
}

/** The requested `*.fields` as a set (empty when absent). */
export function fieldSet(raw: string | null): Set<string> {
  return new Set(raw === null || raw === '' ? [] : raw.split(','));
}

const NOT_FOUND_TYPE = 'https://api.twitter.com/2/problems/resource-not-found';

/** X's per-item problems, sent inside a 200 next to (or instead of) `data`. */
function notFound(parameter: string, value: string): Record<string, unknown> {
  return { value, detail: `Could not find user with ${parameter}: [${value}].`, title: 'Not Found Error', resource_type: 'user', parameter, resource_id: value, type: NOT_FOUND_TYPE };
}
function suspended(parameter: string, value: string): Record<string, unknown> {
  return { parameter, resource_id: value, value, detail: `User has been suspended: [${value}].`, title: 'Forbidden', resource_type: 'user', type: NOT_FOUND_TYPE };
}

/** The 200 body of `/2/users/by` (by `usernames`) or `/2/users` (by `ids`); parameters already validated. */
export function lookupBody(world: XWorld, endpoint: 'users_by' | 'users', query: URLSearchParams, postCountField: 'tweet_count' | 'post_count', onLookup: (user: FakeXUser) => void): Record<string, unknown> {
  const parameter = endpoint === 'users_by' ? 'usernames' : 'ids';
  const fields = fieldSet(query.get('user.fields'));
  const data: Record<string, unknown>[] = [];
  const errors: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const value of (query.get(parameter) ?? '').split(',')) {
    const key = value.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const user = endpoint === 'users_by' ? world.byName(key) : world.usersById.get(value);
    if (!user || user.state === 'removed') {
      errors.push(notFound(parameter, value));
      continue;
    }
    onLookup(user);
    if (user.state === 'suspended') errors.push(suspended(parameter, value));
    else data.push(userJson(user, fields, postCountField));
  }
  return { ...(data.length > 0 ? { data } : {}), ...(errors.length > 0 ? { errors } : {}) };
}

/** Pagination tokens are opaque to clients; this one carries the id to continue below. */
export function pageToken(beforeId: string): string {
  return Buffer.from(`before:${beforeId}`).toString('base64url');
}
export function readPageToken(token: string): string | null {
  return /^before:([0-9]{1,19})$/.exec(Buffer.from(token, 'base64url').toString('utf8'))?.[1] ?? null;
}

/** The 200 body of `/2/users/:id/tweets`, newest first; parameters already validated. */
export function timelineBody(world: XWorld, userId: string, query: URLSearchParams): Record<string, unknown> {
  const user = world.usersById.get(userId);
  const problem = { value: userId, resource_type: 'user', parameter: 'id', resource_id: userId };
  if (!user || user.state === 'removed') return { errors: [{ ...problem, detail: `Could not find user with id: [${userId}].`, title: 'Not Found Error', type: NOT_FOUND_TYPE }] };
  if (user.state === 'suspended') return { errors: [{ ...problem, detail: `User has been suspended: [${userId}].`, title: 'Forbidden', type: NOT_FOUND_TYPE }] };
  if (user.protected) {
    return { errors: [{ ...problem, detail: `Sorry, you are not authorized to see the user with id: [${userId}].`, title: 'Authorization Error', type: 'https://api.twitter.com/2/problems/not-authorized-for-resource' }] };
  }
  const max = Number(query.get('max_results') ?? 10);
  const sinceId = query.get('since_id');
  const token = query.get('pagination_token');
  const since = sinceId === null ? -1n : BigInt(sinceId);
  const before = token === null ? null : BigInt(readPageToken(token) ?? '0');
  const fields = fieldSet(query.get('tweet.fields'));
  const page: FakeXPost[] = [];
  let more = false;
  for (let i = user.timeline.length - 1; i >= 0; i--) {
    const post = user.timeline[i]!;
    const id = BigInt(post.id);
    if (id <= since) break;
    if (before !== null && id >= before) continue;
    if (page.length === max) {
      more = true;
      break;
    }
    page.push(post);
  }
  const first = page[0];
  const last = page[page.length - 1];
  if (!first || !last) return { meta: { result_count: 0 } };
  const meta = { result_count: page.length, newest_id: first.id, oldest_id: last.id, ...(more ? { next_token: pageToken(last.id) } : {}) };
  return { data: page.map((post) => postJson(post, fields)), meta };
}
