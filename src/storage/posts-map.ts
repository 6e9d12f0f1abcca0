// Maps post rows to the domain's Post at the repository boundary (and nowhere else), and back for
// writes: the JSON text columns (entities, metrics history) are read and written only here.
import type { Insertable, Selectable } from 'kysely';
import { POST_STATUSES, type Post, type PostStatus } from '../domain/post.ts';
import { parseHistory } from '../domain/post-history.ts';
import { parseJson, parseStrings } from './json-column.ts';
import type { PostsTable } from './schema.ts';

export type PostRow = Selectable<PostsTable>;

const STATUSES: ReadonlySet<string> = new Set(POST_STATUSES);
/** A status the code does not know (written by a newer version) reads as live. */
const statusOf = (status: string): PostStatus => (STATUSES.has(status) ? (status as PostStatus) : 'live');

export function toPost(row: PostRow): Post {
  return {
    accountId: Number(row.account_id),
    id: row.post_id,
    createdAt: Number(row.created_at),
    text: row.text,
    url: row.url,
    lang: row.lang,
    sentiment: row.sentiment === null ? null : Number(row.sentiment),
    isRepost: Number(row.is_repost) !== 0,
    isReply: Number(row.is_reply) !== 0,
    likes: Number(row.likes),
    reposts: Number(row.reposts),
    replies: Number(row.replies),
    quotes: Number(row.quotes),
    hashtags: parseStrings(row.hashtags),
    mentions: parseStrings(row.mentions),
    domains: parseStrings(row.domains),
    fetchedAt: Number(row.fetched_at),
    metricsObservedAt: Number(row.metrics_observed_at),
    status: statusOf(row.status),
    statusAt: row.status_at === null ? null : Number(row.status_at),
    metricsHistory: parseHistory(parseJson<unknown>(row.metrics_history, [])),
  };
}

/** Every column of the post's row. */
export function toPostRow(post: Post): Insertable<PostsTable> {
  return {
    account_id: post.accountId,
    post_id: post.id,
    created_at: post.createdAt,
    text: post.text,
    url: post.url,
    lang: post.lang,
    sentiment: post.sentiment,
    is_repost: post.isRepost ? 1 : 0,
    is_reply: post.isReply ? 1 : 0,
    likes: post.likes,
    reposts: post.reposts,
    replies: post.replies,
    quotes: post.quotes,
    hashtags: JSON.stringify(post.hashtags),
    mentions: JSON.stringify(post.mentions),
    domains: JSON.stringify(post.domains),
    fetched_at: post.fetchedAt,
    metrics_observed_at: post.metricsObservedAt,
    status: post.status,
    status_at: post.statusAt,
    metrics_history: JSON.stringify(post.metricsHistory),
  };
}
