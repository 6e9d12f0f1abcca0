// How the fake AppView renders its world: the lexicons' profileViewBasic, profileViewDetailed and
// postView (lexicons/app/bsky/{actor,feed}/defs.json), and getAuthorFeed's filters.
import type { BlueskyWorld } from './bluesky-world.ts';
import type { BlueskyPost, BlueskyUser, FeedEntry } from './bluesky-types.ts';

/** getAuthorFeed's `filter` (packages/bsky/src/api/app/bsky/feed/getAuthorFeed.ts); unknown values act as the default. */
export function feedFilter(
  filter: string | null,
  world: BlueskyWorld,
): (entry: FeedEntry, post: BlueskyPost) => boolean {
  switch (filter) {
    case 'posts_no_replies':
      return (entry, post) => entry.repost !== null || post.replyParent === null;
    case 'posts_and_author_threads':
      return (entry, post) => entry.repost !== null || world.isSelfThread(post);
    case 'posts_with_media':
    case 'posts_with_video':
      return () => false; // this world has no media
    default:
      return () => true;
  }
}

/** app.bsky.actor.defs#profileViewBasic */
export function profileViewBasic(user: BlueskyUser): Record<string, unknown> {
  return {
    did: user.did,
    handle: user.handle,
    ...(user.displayName !== null && { displayName: user.displayName }),
    ...(user.avatar !== null && { avatar: user.avatar }),
    associated: { lists: 0, feedgens: 0, starterPacks: 0, labeler: false },
    viewer: { muted: false, blockedBy: false },
    labels: user.labels.map((val) => ({
      src: 'did:plc:ar7c4by46qjdydhdevvrndac',
      uri: user.did,
      val,
      cts: user.createdAt,
    })),
    createdAt: user.createdAt,
    ...(user.verified !== null && {
      verification: {
        verifications: [],
        verifiedStatus: user.verified ? 'valid' : 'none',
        trustedVerifierStatus: 'none',
      },
    }),
  };
}

/** app.bsky.actor.defs#profileViewDetailed */
export function profileViewDetailed(user: BlueskyUser): Record<string, unknown> {
  return {
    ...profileViewBasic(user),
    ...(user.description !== null && { description: user.description }),
    ...(user.website !== null && { website: user.website }),
    followersCount: user.followers,
    followsCount: user.follows,
    postsCount: user.posts,
    indexedAt: user.createdAt,
  };
}

/** app.bsky.feed.defs#postView with its app.bsky.feed.post record. */
export function postView(post: BlueskyPost, author: BlueskyUser): Record<string, unknown> {
  const record: Record<string, unknown> = { $type: 'app.bsky.feed.post', text: post.text, createdAt: post.createdAt };
  if (post.langs) record.langs = post.langs;
  if (post.facets.length > 0) record.facets = post.facets;
  if (post.replyParent !== null) {
    const ref = (uri: string) => ({ uri, cid: `bafyrei${'a'.repeat(52)}` });
    record.reply = { root: ref(post.replyRoot ?? post.replyParent), parent: ref(post.replyParent) };
  }
  return {
    uri: post.uri,
    cid: post.cid,
    author: profileViewBasic(author),
    record,
    bookmarkCount: 0,
    replyCount: post.replies,
    repostCount: post.reposts,
    likeCount: post.likes,
    quoteCount: post.quotes,
    indexedAt: post.indexedAt,
    viewer: {},
    labels: [],
  };
}
