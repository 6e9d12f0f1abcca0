// The local Bluesky AppView in its own process for bench/followers.ts: `FAKE_SUBJECTS` accounts,
// each followed by `FAKE_FOLLOWERS` (the same users for every account); prints its URL and the
// subjects' DIDs over IPC, then serves until killed.
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';

const subjects = Number(process.env.FAKE_SUBJECTS ?? 1);
const followers = Number(process.env.FAKE_FOLLOWERS ?? 100_000);
const bsky = await startFakeBluesky();
const people = bsky.addUsers(followers, 'fan');
const dids: string[] = [];
for (let s = 0; s < subjects; s += 1) {
  const subject = bsky.addUser({ handle: `subject${s}.bsky.social` });
  for (const person of people) bsky.follow(person.did, subject.did);
  dids.push(subject.did);
}
process.send?.({ url: bsky.url, dids });
