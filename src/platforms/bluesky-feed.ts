// A Bluesky author feed (app.bsky.feed.getAuthorFeed), newest first, page by page down to the last
// post seen before; every page passes the caller's pacer.
import { parseFeedPage, toPlatformPost } from './bluesky-wire.ts';
import { body, DID_SYNTAX, xrpcGet, type BlueskyConnection, type Tally } from './bluesky-xrpc.ts';
import { PlatformError, type CallOptions, type CallResult, type PlatformPost } from './types.ts';

/** getAuthorFeed's `limit` is 1..100. */
const FEED_PAGE_MAX = 100;
/** A feed walk stops here whatever the cursor says, so a looping cursor cannot run away. */
const FEED_MAX_PAGES = 50;
/**
 * `posts_with_replies` (the lexicon default) is every post, reply and repost of the author: the
 * same set as an X user timeline, so `isReply` means the same on both platforms.
 * `posts_and_author_threads` would silently drop the author's replies to others.
 */
const FEED_FILTER = 'posts_with_replies';

export async function readAuthorFeed(
  connection: BlueskyConnection,
  userId: string,
  sinceId: string | null,
  wanted: number,
  call: CallOptions,
): Promise<CallResult<PlatformPost[]>> {
  const limit = Math.floor(wanted);
  const method = 'app.bsky.feed.getAuthorFeed';
  const tally: Tally = { rateLimit: null, reads: 0 };
  const posts: PlatformPost[] = [];
  if (!DID_SYNTAX.test(userId))
    throw new PlatformError('invalid_request', `${method}: ${JSON.stringify(userId)} is not a DID`);
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < FEED_MAX_PAGES && posts.length < limit; page += 1) {
    const params: [string, string][] = [
      ['actor', userId],
      ['limit', String(Math.min(FEED_PAGE_MAX, limit - posts.length))],
      ['filter', FEED_FILTER],
    ];
    if (cursor !== null) params.push(['cursor', cursor]);
    // An unknown or taken-down actor is a 400 "Profile not found": thrown as invalid_request.
    const feed = parseFeedPage(body(connection, await xrpcGet(connection, method, params, tally, call), method));
    if (!feed) throw new PlatformError('bad_response', `${method}: no feed array`, { status: 200 });
    for (const item of feed.items) {
      const post = toPlatformPost(item);
      if (!post || seen.has(post.id)) continue;
      // The feed is newest first: the last post seen before is where the new ones end.
      if (post.id === sinceId) return { value: posts, rateLimit: tally.rateLimit, reads: posts.length };
      seen.add(post.id);
      posts.push(post);
      if (posts.length >= limit) break;
    }
    if (feed.cursor === null || feed.cursor === cursor || feed.items.length === 0) break;
    cursor = feed.cursor;
  }
  return { value: posts, rateLimit: tally.rateLimit, reads: posts.length };
}
