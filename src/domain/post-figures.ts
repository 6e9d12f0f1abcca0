// What the analysis reads of a post and what it ranks: the figures every platform gives, the same
// on X and Bluesky.

/** What every platform tells about a post's reach and content, the same on X and Bluesky. */
export interface PostFigures {
  text: string;
  url: string | null;
  /** A repost of someone else's post: never counted as the account's own. */
  isRepost: boolean;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  /** Without the leading #, as written. */
  hashtags: string[];
  /** Handles without the leading @. */
  mentions: string[];
  /** Host names of linked URLs (expanded where the platform gives them), lower-case, without `www.`. */
  domains: string[];
  /** A language tag, or null. */
  lang: string | null;
}

export interface AnalysisPost extends PostFigures {
  id: string;
  /** Epoch ms. */
  createdAt: number;
  /** In [-1, 1] (see post-text.ts), or null when not scored. */
  sentiment: number | null;
  /** Likes at 24 h of age (post-history.ts), or null/absent when no sample was taken then. */
  likesAt24h?: number | null;
}

export interface TopPost {
  id: string;
  createdAt: string;
  url: string | null;
  text: string;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  score: number;
}
