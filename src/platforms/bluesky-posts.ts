// Bluesky post lookups (app.bsky.feed.getPosts, up to 25 at-uris a request) for refreshing the
// metrics of known posts. The AppView leaves out, without a word, every post it cannot show
// (packages/bsky/src/api/app/bsky/feed/getPosts.ts): a deleted post and one whose author is taken
// down look the same, so an omitted post is `deleted`; a post served with a hiding label is `hidden`.
import { fromPostView, hidingPostLabel, parsePostViews, postViewUri } from './bluesky-wire.ts';
import { body, xrpcGet, type BlueskyConnection, type Tally } from './bluesky-xrpc.ts';
import { PlatformError, type CallOptions, type CallResult, type PostLookupOutcome } from './types.ts';

/** getPosts takes at most 25 `uris` (lexicon maxLength). */
export const BLUESKY_POST_BATCH_SIZE = 25;
// A post's at-uri: at://<did>/app.bsky.feed.post/<rkey> (https://atproto.com/specs/at-uri-scheme).
const POST_URI = /^at:\/\/did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]\/app\.bsky\.feed\.post\/[a-zA-Z0-9._~:-]{1,512}$/;

export async function lookupBlueskyPosts(
  connection: BlueskyConnection,
  uris: readonly string[],
  call: CallOptions,
): Promise<CallResult<Map<string, PostLookupOutcome>>> {
  const method = 'app.bsky.feed.getPosts';
  const outcomes = new Map<string, PostLookupOutcome>();
  const wanted: string[] = [];
  for (const uri of new Set(uris)) {
    // One malformed uri would make the AppView refuse the whole request: it is never sent.
    if (POST_URI.test(uri)) wanted.push(uri);
    else outcomes.set(uri, { kind: 'unknown', reason: 'not a Bluesky post uri' });
  }
  const tally: Tally = { rateLimit: null, reads: 0 };
  for (let i = 0; i < wanted.length; i += BLUESKY_POST_BATCH_SIZE) {
    const batch = wanted.slice(i, i + BLUESKY_POST_BATCH_SIZE);
    const views = parsePostViews(
      body(
        connection,
        await xrpcGet(
          connection,
          method,
          batch.map((uri) => ['uris', uri]),
          tally,
          call,
        ),
        method,
      ),
    );
    if (!views) throw new PlatformError('bad_response', `${method}: no posts array`, { status: 200 });
    tally.reads += views.length;
    const asked = new Set(batch);
    for (const view of views) {
      const uri = postViewUri(view);
      if (uri === null || !asked.has(uri)) continue;
      const label = hidingPostLabel(view);
      const post = label === null ? fromPostView(view, false) : null;
      if (label !== null) outcomes.set(uri, { kind: 'hidden', reason: `labelled ${label}` });
      else if (post) outcomes.set(uri, { kind: 'found', post });
      else outcomes.set(uri, { kind: 'unknown', reason: 'the platform sent an unusable post' });
    }
    for (const uri of batch)
      if (!outcomes.has(uri)) outcomes.set(uri, { kind: 'deleted', reason: 'the AppView no longer shows this post' });
  }
  return { value: outcomes, rateLimit: tally.rateLimit, reads: tally.reads };
}
