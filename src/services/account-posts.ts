// One account's stored posts as a use case: newest first, paged by [created_at, post_id].
import type { Post, PostStatus } from '../domain/post.ts';
import type { CheckpointAge } from '../domain/post-history.ts';
import { findAccountRowId } from '../storage/accounts-repo.ts';
import { listPosts } from '../storage/posts-repo.ts';
import { notTracked, type NamedRef } from './account-refs.ts';
import type { ServiceDeps } from './context.ts';

export interface PostView {
  id: string;
  createdAt: string;
  text: string;
  url: string | null;
  lang: string | null;
  sentiment: number | null;
  isRepost: boolean;
  isReply: boolean;
  metrics: { likes: number; reposts: number; replies: number; quotes: number };
  /** When `metrics` were last read from the platform (first read or refresh). */
  metricsObservedAt: string;
  status: PostStatus;
  statusSince: string | null;
  metricsHistory: {
    age: CheckpointAge;
    observedAt: string;
    likes: number;
    reposts: number;
    replies: number;
    quotes: number;
  }[];
  hashtags: string[];
  mentions: string[];
  domains: string[];
}

const toPostView = (post: Post): PostView => ({
  id: post.id,
  createdAt: new Date(post.createdAt).toISOString(),
  text: post.text,
  url: post.url,
  lang: post.lang,
  sentiment: post.sentiment,
  isRepost: post.isRepost,
  isReply: post.isReply,
  metrics: { likes: post.likes, reposts: post.reposts, replies: post.replies, quotes: post.quotes },
  metricsObservedAt: new Date(post.metricsObservedAt).toISOString(),
  status: post.status,
  statusSince: post.statusAt === null ? null : new Date(post.statusAt).toISOString(),
  metricsHistory: post.metricsHistory.map((sample) => ({
    ...sample,
    observedAt: new Date(sample.observedAt).toISOString(),
  })),
  hashtags: post.hashtags,
  mentions: post.mentions,
  domains: post.domains,
});

/** A page of posts; `last` is the position the next page starts after. */
export async function listAccountPosts(
  deps: ServiceDeps,
  ref: NamedRef,
  limit: number,
  before?: readonly [number, string],
): Promise<{ data: PostView[]; more: boolean; last: [number, string] | null }> {
  const accountId = await findAccountRowId(deps.store.reader, ref);
  if (accountId === null) throw notTracked(ref.name);
  const page = await listPosts(deps.store.reader, accountId, limit, before);
  const tail = page.posts.at(-1);
  return { data: page.posts.map(toPostView), more: page.more, last: tail ? [tail.createdAt, tail.id] : null };
}
