// The local X server in its own process for the tracker bench, driven over IPC: it holds the
// users, adds posts between rounds, sets rate limits, and reports what it received.
import { startFakeX } from '../../test/fakes/x-server.ts';

export type FakeXCommand =
  | { type: 'post'; fraction: number }
  | { type: 'limit'; limit: number | null; windowMs: number }
  | { type: 'stats' }
  | { type: 'reset' };

export interface FakeXStats {
  lookupRequests: number;
  lookupOk: number;
  /** Names or ids asked for in lookup requests that were answered 200. */
  lookupKeys: number;
  timelineRequests: number;
  tooManyRequests: number;
  firstLookupAt: number | null;
  lastLookupAt: number | null;
}

const users = Number(process.env.FAKE_X_USERS ?? 100_000);
const fake = await startFakeX({ bearerToken: 'bench-x-token' });
const created = fake.addUsers(users, 'user');

process.on('message', (command: FakeXCommand) => {
  if (command.type === 'post') {
    // Every n-th user posts, so exactly `fraction` of them have something new.
    const every = Math.round(1 / command.fraction);
    for (let i = 0; i < created.length; i += every) fake.addPost(created[i]!.id, { text: `news ${Date.now()} #bench https://example.com/${i}`, likes: i % 50, hashtags: ['bench'] });
    process.send?.({ type: 'done' });
  } else if (command.type === 'limit') {
    fake.setRateLimit('users', command.limit, command.windowMs);
    fake.setRateLimit('users_by', command.limit, command.windowMs);
    process.send?.({ type: 'done' });
  } else if (command.type === 'reset') {
    fake.resetStats();
    process.send?.({ type: 'done' });
  } else {
    const lookups = fake.requests.filter((r) => r.path === '/2/users' || r.path === '/2/users/by');
    const ok = lookups.filter((r) => r.status === 200);
    const stats: FakeXStats = {
      lookupRequests: lookups.length,
      lookupOk: ok.length,
      lookupKeys: ok.reduce((sum, r) => sum + (r.query.get('ids') ?? r.query.get('usernames') ?? '').split(',').length, 0),
      timelineRequests: fake.requests.filter((r) => r.path.endsWith('/tweets')).length,
      tooManyRequests: fake.tooManyRequests,
      firstLookupAt: lookups[0]?.at ?? null,
      lastLookupAt: lookups.at(-1)?.at ?? null,
    };
    process.send?.({ type: 'stats', stats });
  }
});
process.send?.({ type: 'ready', url: fake.url });
