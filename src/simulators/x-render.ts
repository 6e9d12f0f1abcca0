// How the fake X server renders its world in X API v2's wire format, for the fields a request
// asks for: users, posts, the lookup and timeline bodies with X's per-item problems.
import type { XWorld } from './x-world.ts';
import type { FakeXPost, FakeXUser } from './x-types.ts';

/** A user as X v2 renders it: `id`, `name`, `username` always, the rest only when asked for. */
export function userJson(
  user: FakeXUser,
  fields: ReadonlySet<string>,
  postCountField: 'tweet_count' | 'post_count',
): Record<string, unknown> {
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
    out.public_metrics = {
      retweet_count: post.reposts,
      reply_count: post.replies,
      like_count: post.likes,
      quote_count: post.quotes,
      bookmark_count: 0,
      impression_count: 0,
    };
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
export function notFound(parameter: string, value: string): Record<string, unknown> {
  return {
    value,
    detail: `Could not find user with ${parameter}: [${value}].`,
    title: 'Not Found Error',
    resource_type: 'user',
    parameter,
    resource_id: value,
    type: NOT_FOUND_TYPE,
  };
}
function suspended(parameter: string, value: string): Record<string, unknown> {
  return {
    parameter,
    resource_id: value,
    value,
    detail: `User has been suspended: [${value}].`,
    title: 'Forbidden',
    resource_type: 'user',
    type: NOT_FOUND_TYPE,
  };
}

/** The 200 body of `/2/users/by` (by `usernames`) or `/2/users` (by `ids`); parameters already validated. */
export function lookupBody(
  world: XWorld,
  endpoint: 'users_by' | 'users',
  query: URLSearchParams,
  postCountField: 'tweet_count' | 'post_count',
  onLookup: (user: FakeXUser) => void,
): Record<string, unknown> {
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
  if (!user || user.state === 'removed')
    return {
      errors: [
        {
          ...problem,
          detail: `Could not find user with id: [${userId}].`,
          title: 'Not Found Error',
          type: NOT_FOUND_TYPE,
        },
      ],
    };
  if (user.state === 'suspended')
    return {
      errors: [
        { ...problem, detail: `User has been suspended: [${userId}].`, title: 'Forbidden', type: NOT_FOUND_TYPE },
      ],
    };
  if (user.protected) {
    return {
      errors: [
        {
          ...problem,
          detail: `Sorry, you are not authorized to see the user with id: [${userId}].`,
          title: 'Authorization Error',
          type: 'https://api.twitter.com/2/problems/not-authorized-for-resource',
        },
      ],
    };
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
  const meta = {
    result_count: page.length,
    newest_id: first.id,
    oldest_id: last.id,
    ...(more ? { next_token: pageToken(last.id) } : {}),
  };
  return { data: page.map((post) => postJson(post, fields)), meta };
}

/**
 * The 200 body of `GET /2/tweets?ids=` (parameters already validated): the posts X can show in
 * `data`, in the order asked, and one problem per other id in `errors`, a partial answer as X
 * sends it: a deleted post (or one whose author is gone) is `Not Found Error`, a post of a
 * protected author an `Authorization Error`. With nothing to show, only `errors` comes.
 */
export function tweetsBody(world: XWorld, query: URLSearchParams): Record<string, unknown> {
  const fields = fieldSet(query.get('tweet.fields'));
  const data: Record<string, unknown>[] = [];
  const errors: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const id of (query.get('ids') ?? '').split(',')) {
    if (seen.has(id)) continue;
    seen.add(id);
    const post = world.postsById.get(id);
    const author = post === undefined ? undefined : world.usersById.get(post.authorId);
    const problem = { value: id, resource_type: 'tweet', parameter: 'ids', resource_id: id };
    if (!post || !author || author.state !== 'active') {
      errors.push({
        ...problem,
        detail: `Could not find tweet with ids: [${id}].`,
        title: 'Not Found Error',
        type: NOT_FOUND_TYPE,
      });
    } else if (author.protected) {
      errors.push({
        ...problem,
        detail: `Sorry, you are not authorized to see the Tweet with ids: [${id}].`,
        title: 'Authorization Error',
        type: 'https://api.twitter.com/2/problems/not-authorized-for-resource',
      });
    } else {
      data.push(postJson(post, fields));
    }
  }
  return { ...(data.length > 0 ? { data } : {}), ...(errors.length > 0 ? { errors } : {}) };
}
