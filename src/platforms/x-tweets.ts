// X post lookups (`GET /2/tweets?ids=`, up to 100 ids a request) for refreshing the metrics of
// known posts. X answers in part: the posts it can show in `data`, and one problem per other id.
// https://docs.x.com/x-api/posts/get-posts-by-ids
import type { CallOptions, CallResult, PostLookupOutcome, RateLimitInfo } from './types.ts';
import { failUnlessOk, withReads, xGet, type XConnection } from './x-request.ts';
import { outcomeOfPostProblem, parseTweetsPage } from './x-wire-posts.ts';
import { TWEET_FIELDS } from './x-wire.ts';

/** X takes up to 100 ids per `GET /2/tweets`. */
export const X_POST_BATCH_SIZE = 100;
const TWEET_ID = /^[0-9]{1,19}$/;

/** An outcome for every distinct id asked; `reads` counts the posts X returned (and bills). */
export async function lookupTweets(
  connection: XConnection,
  ids: readonly string[],
  call: CallOptions,
): Promise<CallResult<Map<string, PostLookupOutcome>>> {
  const outcomes = new Map<string, PostLookupOutcome>();
  const wanted: string[] = [];
  for (const id of new Set(ids)) {
    // One malformed id would make X refuse the whole request with 400: it is never sent.
    if (TWEET_ID.test(id)) wanted.push(id);
    else outcomes.set(id, { kind: 'unknown', reason: 'not an X post id' });
  }
  let rateLimit: RateLimitInfo | null = null;
  let reads = 0;
  try {
    for (let i = 0; i < wanted.length; i += X_POST_BATCH_SIZE) {
      const batch = wanted.slice(i, i + X_POST_BATCH_SIZE);
      const answer = await xGet(connection, `/2/tweets?ids=${batch.join(',')}&tweet.fields=${TWEET_FIELDS}`, call);
      rateLimit = answer.rateLimit ?? rateLimit;
      failUnlessOk(connection, answer.response, rateLimit);
      const page = parseTweetsPage(answer.response.json);
      reads += page.returned;
      const asked = new Set(batch);
      for (const post of page.posts) if (asked.has(post.id)) outcomes.set(post.id, { kind: 'found', post });
      for (const problem of page.problems) {
        if (problem.value !== null && asked.has(problem.value) && !outcomes.has(problem.value))
          outcomes.set(problem.value, outcomeOfPostProblem(problem));
      }
      for (const id of batch)
        if (!outcomes.has(id))
          outcomes.set(id, { kind: 'unknown', reason: 'X answered neither the post nor an error for it' });
    }
  } catch (error) {
    throw withReads(error, reads);
  }
  return { value: outcomes, rateLimit, reads };
}
