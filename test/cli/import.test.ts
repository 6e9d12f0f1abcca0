// `perch import FILE` as a user runs it: the real CLI in a child process, writing directly to the
// store, or streaming the file to a real server with --url; counts, line numbers and errors printed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { composeApp } from '../../src/compose.ts';
import { perch, SECRET } from '../helpers/cli.ts';
import { freshStoreUrl, readStore, type TestStoreUrl } from '../helpers/store-url.ts';

const ADMIN_KEY = 'test-admin-key-0123456789abcdefghijklmnop';

// Line 1 is a header; line 4 repeats line 2 (case-insensitively); line 5 is not a username.
const DIRECT_CSV = 'username,note\njack,founder\n@alice\nJACK\nbad name!\nhttps://x.com/bob\n';
const REMOTE_CSV = 'carol\n\ndave\nnot valid!!\ncarol\n';
const UNUSABLE_CSV = 'handle\nbad name!\n!!!\n';

describe('perch import', () => {
  let store: TestStoreUrl;
  let app: FastifyInstance;
  let url: string;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    store = await freshStoreUrl();
    env = { DATABASE_URL: store.url };
    dir = mkdtempSync(join(tmpdir(), 'perch-cli-'));
    writeFileSync(join(dir, 'direct.csv'), DIRECT_CSV);
    writeFileSync(join(dir, 'remote.csv'), REMOTE_CSV);
    writeFileSync(join(dir, 'unusable.csv'), UNUSABLE_CSV);
    const config = createConfig({
      DATABASE_URL: store.url,
      KEY_HASH_SECRET: SECRET,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'silent',
      TRACKER: 'off',
    });
    ({ app } = await composeApp(config, { logger: createLogger('silent', { pretty: false }) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app?.close();
    await store?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes a file directly to the store and reports counts and rejected lines', async () => {
    const result = await perch(['import', join(dir, 'direct.csv')], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /5 rows received, 3 accepted: 3 inserted, 0 reactivated, 0 already tracked/);
    assert.match(result.stdout, /1 duplicate, 1 rejected/);
    assert.match(result.stdout, /line 5: "bad name!"\s+invalid_username/);
    // What the three new X accounts cost at the default rate card ($0.01 a user a day, $0.005 a post).
    assert.match(
      result.stdout,
      /Estimated cost of tracking the added accounts:\n {2}x: 3 accounts, \$0\.03 a day \(\$0\.90 a month\), first post reads at most \$1\.50 once\n/,
    );
    assert.equal(result.stderr, '', 'no progress bar when stderr is not a terminal');

    const rows = await readStore(store.url, (check) =>
      check.db.selectFrom('accounts').select(['platform', 'username', 'note']).orderBy('username').execute(),
    );
    assert.deepEqual(rows, [
      { platform: 'x', username: 'alice', note: null },
      { platform: 'x', username: 'bob', note: null },
      { platform: 'x', username: 'jack', note: 'founder' },
    ]);
  });

  it('streams a file to a running server with --url and prints its report', async () => {
    const result = await perch(['import', join(dir, 'remote.csv'), '--url', url, '--json'], {
      ...env,
      PERCH_API_KEY: ADMIN_KEY,
    });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.match(String(report.importId), /^imp_/);
    assert.deepEqual(
      { ...report, importId: undefined },
      {
        success: true,
        importId: undefined,
        received: 4,
        accepted: 2,
        inserted: 2,
        reactivated: 0,
        alreadyTracked: 0,
        duplicates: 1,
        rejected: [
          {
            line: 4,
            value: 'not valid!!',
            code: 'invalid_username',
            reason: 'X usernames are 1-15 letters, digits or _',
          },
        ],
        rejectedCount: 1,
        rejectedTruncated: false,
        warnings: [],
        // The server's answer says what the two new X accounts cost.
        estimate: {
          rateCard: { userUsd: 0.01, postUsd: 0.005 },
          platforms: [{ platform: 'x', accounts: 2, perDayUsd: 0.02, perMonthUsd: 0.6, firstReadUsd: 1 }],
        },
      },
    );
    const dave = await app.inject({ method: 'GET', url: '/api/?username=dave', headers: { 'x-api-key': ADMIN_KEY } });
    assert.equal(dave.statusCode, 200, dave.body);
  });

  it('prints the estimate the server answers with in plain text, and none when nothing was added', async () => {
    writeFileSync(join(dir, 'remote-text.csv'), 'username\nerin\nerin.bsky.social\n');
    const first = await perch(['import', join(dir, 'remote-text.csv'), '--url', url], {
      ...env,
      PERCH_API_KEY: ADMIN_KEY,
    });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /2 rows received, 2 accepted: 2 inserted/);
    assert.match(
      first.stdout,
      /\n {2}x: 1 account, \$0\.01 a day \(\$0\.30 a month\), first post reads at most \$0\.50 once\n/,
    );
    assert.match(first.stdout, /\n {2}bluesky: 1 account, free to read\n/);
    const again = await perch(['import', join(dir, 'remote-text.csv'), '--url', url], {
      ...env,
      PERCH_API_KEY: ADMIN_KEY,
    });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /2 already tracked/);
    assert.doesNotMatch(again.stdout, /Estimated cost/);
  });

  it('fails with exit 1 and the problem code when no row is usable, or the file cannot be read', async () => {
    const [unusable, missing] = await Promise.all([
      perch(['import', join(dir, 'unusable.csv'), '--url', `${url}/`, '--api-key', ADMIN_KEY], env),
      perch(['import', join(dir, 'missing.csv')], env),
    ]);
    assert.equal(unusable.code, 1, unusable.stderr);
    assert.equal(unusable.stdout, '');
    assert.match(unusable.stderr, /\(csv_no_usernames\)/);
    assert.match(unusable.stderr, /line 2: "bad name!"/);
    assert.match(unusable.stderr, /line 3: "!!!"/);

    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read ".*missing\.csv": there is no such file/);
    assert.doesNotMatch(unusable.stderr + missing.stderr, /\n\s+at /, 'no stack trace');
  });
});
