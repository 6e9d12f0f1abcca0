// The events about posts (DESIGN.md §8): account.posted for a new own post, found on the stream
// or by polling, and post.deleted for a stored post that is gone.
import type { EventAccount, NewEvent } from './events.ts';
import type { Post } from './post.ts';

/** The account an event is about, with its row id. */
export interface EventSubject {
  accountId: number;
  account: EventAccount;
}

/** Longest text an account.posted event carries. */
const TEXT_MAX = 300;

export function postedEvent(subject: EventSubject, post: Post, via: 'stream' | 'poll'): NewEvent {
  const text = [...post.text];
  return {
    type: 'account.posted',
    accountId: subject.accountId,
    account: subject.account,
    data: {
      post: {
        id: post.id,
        url: post.url,
        createdAt: new Date(post.createdAt).toISOString(),
        // Cut by code points, so an emoji is never split in half.
        text: text.length > TEXT_MAX ? text.slice(0, TEXT_MAX).join('') : post.text,
        via,
      },
    },
  };
}

export function postDeletedEvent(subject: EventSubject, postId: string): NewEvent {
  return { type: 'post.deleted', accountId: subject.accountId, account: subject.account, data: { postId } };
}
