// The shapes of the fake Bluesky AppView's world: accounts, posts and author-feed entries.
export interface NewUser {
  /** did:plc: + 24 base32 characters when not given. */
  did?: string;
  handle: string;
  displayName?: string;
  description?: string;
  avatar?: string;
  website?: string;
  followers?: number;
  follows?: number;
  /** Starting postsCount; every addPost adds one. */
  posts?: number;
  createdAt?: string;
  /** true/false gives a verification state (`valid`/`none`); absent gives none at all. */
  verified?: boolean;
}

export type UserPatch = Partial<
  Pick<
    BlueskyUser,
    'displayName' | 'description' | 'avatar' | 'website' | 'followers' | 'follows' | 'posts' | 'verified'
  >
>;

export interface BlueskyUser {
  did: string;
  handle: string;
  displayName: string | null;
  description: string | null;
  avatar: string | null;
  website: string | null;
  followers: number;
  follows: number;
  posts: number;
  createdAt: string;
  verified: boolean | null;
  status: 'active' | 'takendown' | 'deactivated';
  /** Account labels, e.g. `!takedown` set by a moderation service. */
  labels: string[];
  /** The pinned post's uri (shown first by getAuthorFeed with includePins=true). */
  pinned: string | null;
}

export interface NewPost {
  text: string;
  createdAt?: string;
  likes?: number;
  reposts?: number;
  replies?: number;
  quotes?: number;
  /** Hashtags without `#`; each gets a tag facet over `#tag` in the text (appended when absent). */
  tags?: string[];
  /** Handles; each gets a mention facet over `@handle` in the text (appended when absent). */
  mentions?: string[];
  /** URLs; each gets a link facet over the URL in the text (appended when absent). */
  links?: string[];
  /** A repost by the user of a new post written by `repostOf` (a did), or by a stock stranger. */
  isRepost?: boolean;
  repostOf?: string;
  /** A reply to `replyTo` (a post uri), or to a stranger's post that does not exist here. */
  isReply?: boolean;
  replyTo?: string;
  langs?: string[];
}

export interface BlueskyPost {
  uri: string;
  cid: string;
  rkey: string;
  did: string;
  text: string;
  createdAt: string;
  indexedAt: string;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  langs: string[] | null;
  facets: unknown[];
  replyParent: string | null;
  replyRoot: string | null;
}

/** One line of an author feed: the user's own post, or a repost of someone's. */
export interface FeedEntry {
  sortAt: number;
  seq: number;
  postUri: string;
  repost: { uri: string; cid: string; indexedAt: string } | null;
}

/** What changes on a post after it is published: its counts. */
export type PostPatch = Partial<Pick<BlueskyPost, 'likes' | 'reposts' | 'replies' | 'quotes'>>;

/** What changed in the world, as a Jetstream would tell it (jetstream-world.ts turns these into frames). */
export type WorldChange =
  | { kind: 'post'; post: BlueskyPost }
  | { kind: 'repost'; did: string; rkey: string; subject: { uri: string; cid: string }; createdAt: string }
  | { kind: 'delete'; did: string; rkey: string }
  | { kind: 'profile'; user: BlueskyUser }
  | { kind: 'handle'; did: string; handle: string }
  | { kind: 'status'; did: string; status: 'active' | 'takendown' | 'deactivated' | 'deleted' }
  | { kind: 'follow'; did: string; rkey: string; subject: string; createdAt: string }
  | { kind: 'unfollow'; did: string; rkey: string };
