// An X user timeline (`GET /2/users/:id/tweets`), newest first, page by page down to `sinceId`.
// https://docs.x.com/x-api/users/get-posts
import { PlatformError, type CallOptions, type CallResult, type PlatformPost, type RateLimitInfo } from './types.ts';
import { failUnlessOk, withReads, xGet, type XConnection } from './x-request.ts';
import { parseTimelinePage } from './x-wire-posts.ts';
import { TWEET_FIELDS } from './x-wire.ts';

/** A timeline page holds 5 to 100 posts. */
const MIN_PAGE = 5;
const MAX_PAGE = 100;

/** Posts newer than `sinceId` (all when null), at most `limit`; every page passes the caller's pacer. */
export async function readTimeline(
  connection: XConnection,
  userId: string,
  sinceId: string | null,
  limit: number,
  call: CallOptions,
): Promise<CallResult<PlatformPost[]>> {
  const posts: PlatformPost[] = [];
  let rateLimit: RateLimitInfo | null = null;
  let reads = 0;
  let pageToken: string | null = null;
  try {
    // Pages are sized by what X returns (and bills), not by the posts kept, so a skipped malformed
    // post never costs another request.
    while (reads < limit) {
      const size = Math.min(MAX_PAGE, Math.max(MIN_PAGE, limit - reads));
      let query = `max_results=${size}&tweet.fields=${TWEET_FIELDS}`;
      if (sinceId !== null) query += `&since_id=${encodeURIComponent(sinceId)}`;
      if (pageToken !== null) query += `&pagination_token=${encodeURIComponent(pageToken)}`;
      const answer = await xGet(connection, `/2/users/${encodeURIComponent(userId)}/tweets?${query}`, call);
      rateLimit = answer.rateLimit ?? rateLimit;
      failUnlessOk(connection, answer.response, rateLimit);
      const page = parseTimelinePage(answer.response.json);
      const problem = page.problems[0];
      // A suspended, deleted or protected author: X answers 200 with only an error; asking again won't help.
      if (page.returned === 0 && problem !== undefined) {
        throw new PlatformError(
          'invalid_request',
          `X refused the timeline: ${problem.detail ?? problem.title ?? 'no detail'}`,
          { status: answer.response.status, rateLimit },
        );
      }
      reads += page.returned;
      posts.push(...page.posts);
      pageToken = page.nextToken;
      if (pageToken === null || page.returned === 0) break;
    }
  } catch (error) {
    throw withReads(error, reads);
  }
  return { value: posts.slice(0, Math.max(0, limit)), rateLimit, reads };
}
