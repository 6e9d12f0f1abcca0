// X API v2 post payloads as perch reads them: posts of a timeline page (`GET /2/users/:id/tweets`)
// and of a post lookup (`GET /2/tweets?ids=`), with X's per-item problems for posts it cannot show.
// https://docs.x.com/x-api/posts/get-posts-by-ids and https://docs.x.com/x-api/users/get-posts
import type { PlatformPost, PostLookupOutcome } from './types.ts';
import { webUrlOrNull } from './web-url.ts';
import {
  badShape,
  count,
  isObject,
  isoDate,
  list,
  parseProblem,
  splitPage,
  str,
  text,
  type JsonObject,
  type XProblem,
} from './x-wire.ts';

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

function entityValues(entities: JsonObject, key: string, read: (item: JsonObject) => string | null): string[] {
  const values = new Set<string>();
  for (const item of list(entities[key])) {
    const value = isObject(item) ? read(item) : null;
    if (value) values.add(value);
  }
  return [...values];
}

/** One post item of `data`, or null when it lacks an id, text or creation time (perch skips it). */
export function parsePost(item: unknown): PlatformPost | null {
  if (!isObject(item)) return null;
  const id = text(item.id);
  const createdAt = isoDate(item.created_at);
  const body = str(item.text);
  if (id === null || createdAt === null || body === null) return null;
  const metrics = isObject(item.public_metrics) ? item.public_metrics : {};
  const references = list(item.referenced_tweets).map((ref) => (isObject(ref) ? str(ref.type) : null));
  const entities = isObject(item.entities) ? item.entities : {};
  const lang = text(item.lang);
  return {
    id,
    createdAt,
    text: body,
    // `und` is X's code for "undetermined", which is no language.
    lang: lang === 'und' ? null : lang,
    isRepost: references.includes('retweeted'),
    isReply: references.includes('replied_to'),
    url: webUrlOrNull(`https://x.com/i/web/status/${id}`),
    likes: count(metrics.like_count) ?? 0,
    reposts: count(metrics.retweet_count) ?? 0,
    replies: count(metrics.reply_count) ?? 0,
    quotes: count(metrics.quote_count) ?? 0,
    hashtags: entityValues(entities, 'hashtags', (h) => str(h.tag)),
    mentions: entityValues(entities, 'mentions', (m) => str(m.username)),
    domains: entityValues(entities, 'urls', (u) => {
      const url = str(u.expanded_url) ?? str(u.url);
      return url === null ? null : hostOf(url);
    }),
  };
}

/**
 * A 200 from `/2/users/:id/tweets`. An empty timeline has no `data`, only `meta.result_count: 0`;
 * a suspended, deleted or protected author comes back as `errors` alone. Only a wrong overall shape
 * throws; malformed posts are left out of `posts` but counted in `returned` (X bills them).
 */
export function parseTimelinePage(body: unknown): {
  posts: PlatformPost[];
  returned: number;
  nextToken: string | null;
  problems: XProblem[];
} {
  if (!isObject(body)) throw badShape('the body is not a JSON object');
  if (body.data !== undefined && !Array.isArray(body.data)) throw badShape('data is not an array');
  if (body.data === undefined && body.meta === undefined && body.errors === undefined)
    throw badShape('neither data, meta nor errors');
  const meta = isObject(body.meta) ? body.meta : {};
  const problems = list(body.errors)
    .map(parseProblem)
    .filter((p): p is XProblem => p !== null && p.section !== 'includes');
  const data = list(body.data);
  const posts = data.map(parsePost).filter((post): post is PlatformPost => post !== null);
  return { posts, returned: data.length, nextToken: text(meta.next_token), problems };
}

/**
 * A 200 from `GET /2/tweets?ids=`: the posts X can show in `data`, a problem per other id in
 * `errors` (a partial answer); either may be absent. Only a wrong overall shape throws; a
 * malformed post is left out (and so answered `unknown`) but counted in `returned`.
 */
export function parseTweetsPage(body: unknown): { posts: PlatformPost[]; returned: number; problems: XProblem[] } {
  const { data, problems } = splitPage(body);
  return {
    posts: data.map(parsePost).filter((post): post is PlatformPost => post !== null),
    returned: data.length,
    problems,
  };
}

/**
 * A post X would not show: `resource-not-found` ("Could not find tweet with ids: [1].") is a
 * deleted post (or one whose author is gone); `not-authorized-for-resource` ("Sorry, you are not
 * authorized to see the Tweet…") is a post of a protected author, hidden from us.
 */
export function outcomeOfPostProblem(problem: XProblem): PostLookupOutcome {
  const reason = problem.detail ?? problem.title ?? 'X reported an error without detail';
  if (problem.type?.endsWith('/resource-not-found') || problem.title === 'Not Found Error')
    return { kind: 'deleted', reason };
  if (
    problem.type?.endsWith('/not-authorized-for-resource') ||
    problem.title === 'Authorization Error' ||
    problem.title === 'Forbidden'
  )
    return { kind: 'hidden', reason };
  return { kind: 'unknown', reason };
}
