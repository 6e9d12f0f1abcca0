// Live follows on Bluesky (DESIGN §11), the pure part: which frames of the follows stream are
// follows made or undone. A create names its subject in the record; a delete names only the
// follower and the record key, so it is matched against the records perch saw created.
import { FOLLOW_COLLECTION } from '../domain/stream-shards.ts';
import type { StreamFrame } from './frames.ts';

export interface FollowMade {
  followerDid: string;
  rkey: string;
  subjectDid: string;
  timeUs: number;
}

export interface FollowUndone {
  followerDid: string;
  rkey: string;
  timeUs: number;
}

const DID = /^did:[a-z]+:[a-zA-Z0-9._:%-]{1,2040}$/;

/** The follows a batch makes and undoes, in frame order; any other frame only moves the cursor. */
export function followChanges(frames: readonly StreamFrame[]): { made: FollowMade[]; undone: FollowUndone[] } {
  const made: FollowMade[] = [];
  const undone: FollowUndone[] = [];
  for (const frame of frames) {
    if (frame.kind !== 'commit' || frame.collection !== FOLLOW_COLLECTION) continue;
    const { did: followerDid, rkey, timeUs } = frame;
    if (frame.operation === 'delete') undone.push({ followerDid, rkey, timeUs });
    else if (frame.operation === 'create') {
      // app.bsky.graph.follow: `subject` is the followed account's DID; anything else is not a follow.
      const subject = frame.record?.subject;
      if (typeof subject === 'string' && DID.test(subject) && subject !== followerDid)
        made.push({ followerDid, rkey, subjectDid: subject, timeUs });
    }
  }
  return { made, undone };
}
