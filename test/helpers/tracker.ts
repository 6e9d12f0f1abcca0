// A tracker on a real store against the local X and Bluesky servers, on a virtual clock: sleeps
// (rate-limit waits, backoff) move time forward at once, and the fakes read the same clock.
import type { TestContext } from 'node:test';
import { createConfig, type Config } from '../../src/config.ts';
import type { Account } from '../../src/domain/account.ts';
import type { Platform } from '../../src/domain/platforms.ts';
import { createLogger } from '../../src/logger.ts';
import { createBlueskyClient } from '../../src/platforms/bluesky.ts';
import { createXClient } from '../../src/platforms/x.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { findAccount } from '../../src/storage/accounts-repo.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { trackerSettings } from '../../src/tracker/create-tracker.ts';
import { spendPlans } from '../../src/limits/spend-plan.ts';
import { Tracker, type TrackerOptions } from '../../src/tracker/tracker.ts';
import type { SleepingClock } from '../../src/clock.ts';
import { startFakeBluesky, type FakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX, type FakeX, type FakeXOptions } from '../../src/simulators/x-server.ts';
import { freshStoreUrl, storeEnv } from './store-url.ts';

export const X_TOKEN = 'test-x-token';

/** Virtual time: sleep() advances it at once (after letting other work run). */
export class VirtualClock implements SleepingClock {
  constructor(public current = Date.parse('2026-11-23T12:00:00.000Z')) {}
  now = () => this.current;
  advance(ms: number): void {
    this.current += ms;
  }
  /** Moves time to (at least) the end of the sleep; sleepers in parallel do not add up. */
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    const until = this.current + Math.max(0, ms);
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) return;
    this.current = Math.max(this.current, until);
  };
}

export interface TrackerWorld {
  store: Store;
  config: Config;
  clock: VirtualClock;
  x: FakeX;
  bsky: FakeBluesky;
  /** A tracker on this world (a new one per call; all share the store). */
  tracker(options?: Partial<TrackerOptions> & { timeoutMs?: number }): Tracker;
  importCsv(csv: string): Promise<void>;
  account(platform: Platform, username: string): Promise<Account>;
}

export async function trackerWorld(
  t: TestContext,
  options: { x?: FakeXOptions; env?: Record<string, string> } = {},
): Promise<TrackerWorld> {
  const location = await freshStoreUrl();
  const clock = new VirtualClock();
  const x = await startFakeX({ clock, ...options.x });
  const bsky = await startFakeBluesky({ clock });
  const config = createConfig({
    DATABASE_URL: location.url,
    KEY_HASH_SECRET: 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz',
    TRACK_INTERVAL: '1h',
    TRACK_LEASE: '1d',
    BLUESKY_JETSTREAM_URL: 'off',
    ...storeEnv,
    ...options.env,
  });
  // The lease is long here because virtual time jumps while a batch's real work (a PostgreSQL
  // round trip) is still running; lease expiry has its own test with real processes.
  const store = await openStore(config.databaseUrl, { preparedStatements: config.preparedStatements });
  const trackers: Tracker[] = [];
  t.after(async () => {
    await Promise.all(trackers.map((tracker) => tracker.stop(0)));
    await store.close();
    await Promise.all([x.close(), bsky.close()]);
    await location.drop();
  });
  const logger = createLogger(process.env.TEST_TRACKER_LOG ?? 'silent');
  return {
    store,
    config,
    clock,
    x,
    bsky,
    tracker(overrides = {}) {
      const timeoutMs = overrides.timeoutMs ?? 2_000;
      const tracker = new Tracker({
        store,
        clients: [
          createXClient({ baseUrl: x.url, bearerToken: X_TOKEN, timeoutMs, now: clock.now }),
          createBlueskyClient({ baseUrl: bsky.url, timeoutMs, now: clock.now }),
        ],
        clock,
        settings: trackerSettings(config),
        logger,
        spendPlans: spendPlans(config),
        random: () => 0.5,
        ...overrides,
      });
      trackers.push(tracker);
      return tracker;
    },
    async importCsv(csv) {
      const plan = await planImport(csv, config);
      await commitImport(store, plan, { actor: 'test', source: 'test', clock });
    },
    async account(platform, username) {
      const account = await findAccount(store.db, { platform, key: username.toLowerCase() });
      if (!account) throw new Error(`${platform}:${username} is not tracked`);
      return account;
    },
  };
}
