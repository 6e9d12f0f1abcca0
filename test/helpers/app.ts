// build(t): a real app on a real store (SQLite file or PostgreSQL schema), closed after the test.
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createConfig, type Config } from '../../src/config.ts';
import type { AppDeps } from '../../src/app-deps.ts';
import { createLogger } from '../../src/logger.ts';
import { composeApp } from '../../src/compose.ts';
import type { Tracker } from '../../src/tracker/tracker.ts';
import { freshStoreUrl, storeEnv } from './store-url.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdefghijklmnop';

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public current = Date.parse('2026-11-23T12:00:00.000Z')) {}
  now = () => this.current;
  advance(ms: number): void {
    this.current += ms;
  }
}

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  config: Config;
  clock: TestClock;
  /** Every log line written so far. */
  logs: string[];
  storeDir: string | null;
  /** The admin key printed at a first start without ADMIN_API_KEY. */
  firstAdminKey: string | null;
  /** The app's own tracker (built, not started), or null with TRACKER=off. */
  tracker: Tracker | null;
  /** Calls the API with the admin key. */
  admin(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<{ statusCode: number; body: string; json: () => any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Creates a key through the API and returns its plaintext and id. */
  createKey(role: 'app' | 'admin', extra?: Record<string, unknown>): Promise<{ apiKey: string; id: string }>;
}

export async function build(
  t: TestContext,
  overrides: Partial<Config> = {},
  env: Record<string, string> = {},
  setup?: (app: FastifyInstance) => void,
): Promise<TestApp> {
  const store = await freshStoreUrl();
  const config = createConfig(
    {
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_HASH_SECRET: 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz',
      DATABASE_URL: store.url,
      LOG_LEVEL: 'info',
      BLUESKY_JETSTREAM_URL: 'off',
      ...storeEnv,
      ...env,
    },
    overrides,
  );
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const clock = new TestClock();
  const { app, deps, firstAdminKey, tracker } = await composeApp(config, {
    logger: createLogger(config.logLevel, { destination, pretty: false }),
    clock,
    trackerClock: { now: clock.now, sleep: async () => {} },
  });
  t.after(async () => {
    await app.close();
    await store.drop();
  });
  setup?.(app);
  await app.ready();
  return {
    app,
    deps,
    config,
    clock,
    logs,
    storeDir: store.dir,
    firstAdminKey,
    tracker,
    async admin(method, url, payload) {
      const response = await app.inject({
        method,
        url,
        headers: { 'x-api-key': ADMIN_KEY },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { statusCode: response.statusCode, body: response.body, json: () => response.json() };
    },
    async createKey(role, extra = {}) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/admin/api-keys',
        headers: { 'x-api-key': ADMIN_KEY },
        payload: { role, username: `user-${role}`, ...extra },
      });
      if (response.statusCode !== 201) throw new Error(`key creation failed: ${response.body}`);
      const body = response.json<{ apiKey: string; id: string }>();
      return { apiKey: body.apiKey, id: body.id };
    },
  };
}

/** Accounts in the test app's store (tracked or not): what an import or a refused request changed. */
export async function countAccounts(t: TestApp): Promise<number> {
  const row = await t.deps.store.db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
