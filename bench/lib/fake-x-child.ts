// The local X server in its own process for the tracker benches, driven over IPC: it holds the
// users, adds posts between rounds, sets rate limits, and reports what it received.
import { startFakeX } from '../../src/simulators/x-server.ts';

export type FakeXCommand =
  | { type: 'post'; fraction: number }
  /** Limits both lookup endpoints; `tweets` also limits timeline reads (absent: unlimited). */
  | { type: 'limit'; limit: number | null; windowMs: number; tweets?: number | null }
  | { type: 'stats' }
  | { type: 'reset' };

/** The windows one limited endpoint opened since the last reset, as the server counted them. */
export interface FakeXWindow {
  openedAt: number;
  resetAt: number;
  /** Requests answered 200 (allowed) and 429 (refused) in this window. */
  ok: number;
  refused: number;
}

export interface FakeXStats {
  lookupRequests: number;
  lookupOk: number;
  /** Names or ids asked for in lookup requests that were answered 200. */
  lookupKeys: number;
  timelineRequests: number;
  tooManyRequests: number;
  firstLookupAt: number | null;
  lastLookupAt: number | null;
  /** Users by how many lookup responses carried them since the last reset. */
  usersLookedUp: { never: number; once: number; more: number };
  /** Windows of the limited endpoints (empty when unlimited). */
  windows: { users: FakeXWindow[]; usersBy: FakeXWindow[]; tweets: FakeXWindow[] };
}

const users = Number(process.env.FAKE_X_USERS ?? 100_000);
const fake = await startFakeX({ bearerToken: 'bench-x-token' });
const created = fake.addUsers(users, 'user');
const limits = {
  lookups: null as { limit: number; windowMs: number } | null,
  tweets: null as { limit: number; windowMs: number } | null,
};

/**
 * The windows the server opened for one endpoint, rebuilt from its request log with the rule of
 * src/simulators/fake-kit.ts (RateWindows): a window opens at the first request at or after the last
 * reset, and resets on the whole second after `windowMs`.
 */
function windowsOf(matches: (path: string) => boolean, windowMs: number | undefined): FakeXWindow[] {
  if (windowMs === undefined) return [];
  const windows: FakeXWindow[] = [];
  for (const request of fake.requests) {
    if (!matches(request.path)) continue;
    let current = windows.at(-1);
    if (current === undefined || request.at >= current.resetAt) {
      current = { openedAt: request.at, resetAt: Math.ceil((request.at + windowMs) / 1000) * 1000, ok: 0, refused: 0 };
      windows.push(current);
    }
    if (request.status === 429) current.refused += 1;
    else current.ok += 1;
  }
  return windows;
}

process.on('message', (command: FakeXCommand) => {
  if (command.type === 'post') {
    // Every n-th user posts, so exactly `fraction` of them have something new.
    const every = Math.round(1 / command.fraction);
    for (let i = 0; i < created.length; i += every)
      fake.addPost(created[i]!.id, {
        text: `news ${Date.now()} #bench https://example.com/${i}`,
        likes: i % 50,
        hashtags: ['bench'],
      });
    process.send?.({ type: 'done' });
  } else if (command.type === 'limit') {
    fake.setRateLimit('users', command.limit, command.windowMs);
    fake.setRateLimit('users_by', command.limit, command.windowMs);
    fake.setRateLimit('tweets', command.tweets ?? null, command.windowMs);
    limits.lookups = command.limit === null ? null : { limit: command.limit, windowMs: command.windowMs };
    limits.tweets = command.tweets == null ? null : { limit: command.tweets, windowMs: command.windowMs };
    process.send?.({ type: 'done' });
  } else if (command.type === 'reset') {
    fake.resetStats();
    process.send?.({ type: 'done' });
  } else {
    const lookups = fake.requests.filter((r) => r.path === '/2/users' || r.path === '/2/users/by');
    const ok = lookups.filter((r) => r.status === 200);
    const usersLookedUp = { never: 0, once: 0, more: 0 };
    for (const user of created) {
      const n = fake.lookupsOf(user.id);
      if (n === 0) usersLookedUp.never += 1;
      else if (n === 1) usersLookedUp.once += 1;
      else usersLookedUp.more += 1;
    }
    const stats: FakeXStats = {
      lookupRequests: lookups.length,
      lookupOk: ok.length,
      lookupKeys: ok.reduce(
        (sum, r) => sum + (r.query.get('ids') ?? r.query.get('usernames') ?? '').split(',').length,
        0,
      ),
      timelineRequests: fake.requests.filter((r) => r.path.endsWith('/tweets')).length,
      tooManyRequests: fake.tooManyRequests,
      firstLookupAt: lookups[0]?.at ?? null,
      lastLookupAt: lookups.at(-1)?.at ?? null,
      usersLookedUp,
      windows: {
        users: windowsOf((path) => path === '/2/users', limits.lookups?.windowMs),
        usersBy: windowsOf((path) => path === '/2/users/by', limits.lookups?.windowMs),
        tweets: windowsOf((path) => path.endsWith('/tweets'), limits.tweets?.windowMs),
      },
    };
    process.send?.({ type: 'stats', stats });
  }
});
process.send?.({ type: 'ready', url: fake.url });
