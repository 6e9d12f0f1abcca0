// A stored post of a tracked account as the rest of perch sees it (storage/posts-map.ts maps its
// row), and the statuses it can be in.
import type { PostFigures } from './post-figures.ts';
import type { MetricsSample } from './post-history.ts';

/** `live`, or marked because the platform no longer shows it: `deleted` (gone) or `hidden` (withheld from us). */
export const POST_STATUSES = ['live', 'deleted', 'hidden'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export interface Post extends PostFigures {
  /** The tracked account's row id. */
  accountId: number;
  /** The platform's id of the post. */
  id: string;
  /** Epoch ms, as the platform dates it. */
  createdAt: number;
  isReply: boolean;
  /** In [-1, 1] (post-text.ts), or null when not scored. */
  sentiment: number | null;
  /** When perch first read it (epoch ms). */
  fetchedAt: number;
  /** When its metrics were last read from the platform (first read or refresh). */
  metricsObservedAt: number;
  status: PostStatus;
  /** When it was found deleted or hidden; null while live. */
  statusAt: number | null;
  /** Its metrics at fixed ages (post-history.ts), at most one sample per age. */
  metricsHistory: MetricsSample[];
}
