// The shapes of the fake X server's world: users and posts as scripted by tests and the demo.
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

/** What changes on a post after it is published: its counts (and, rarely, an edit of its text). */
export type XPostPatch = Partial<Pick<FakeXPost, 'likes' | 'reposts' | 'replies' | 'quotes' | 'text'>>;

/** The endpoints the local X server answers, each with its own rate-limit window. */
export type XEndpoint = 'users_by' | 'users' | 'tweets' | 'tweets_by_ids' | 'followers';
