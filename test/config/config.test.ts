// Configuration: defaults, units, one clear line per problem, and .env.example listing every variable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { ConfigError, PERCH_HOME, RETAINED_TABLES, createConfig, retentionSetting } from '../../src/config.ts';
import { parseDuration, parseSize } from '../../src/domain/units.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = createConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    // A relative file is resolved against perch's own folder, not the caller's working directory.
    assert.equal(config.databaseUrl, `file:${join(PERCH_HOME, 'data', 'perch.db')}`);
    assert.equal(config.dataDir, join(PERCH_HOME, 'data'));
    assert.equal(
      createConfig({ DATABASE_URL: 'file:store/p.db' }, {}, '/srv/perch').databaseUrl,
      'file:/srv/perch/store/p.db',
    );
    assert.equal(
      createConfig({ DATABASE_URL: 'file:/var/lib/perch/p.db' }, {}, '/srv/perch').dataDir,
      '/var/lib/perch',
    );
    assert.equal(config.shutdownTimeoutMs, 10_000);
    assert.equal(config.retention.idempotency, 86_400_000);
    assert.equal(createConfig({ AUDIT_RETENTION: 'off' }).retention.audit, null);
    assert.throws(() => createConfig({ IDEMPOTENCY_RETENTION: '2d' }), /IDEMPOTENCY_RETENTION/);
    assert.equal(config.retention.events, 30 * 86_400_000);
    assert.equal(createConfig({ EVENT_RETENTION: '7d' }).retention.events, 7 * 86_400_000);
    assert.equal(createConfig({ EVENT_RETENTION: 'off' }).retention.events, null);
    assert.equal(config.defaultPlatform, 'x');
    assert.equal(config.trackIntervalMs, 3_600_000);
    assert.equal(config.maxImportBytes, 50 * 1_048_576);
    assert.equal(config.maxImportRows, 1_000_000);
    assert.equal(config.preparedStatements, true);
    assert.equal(createConfig({ PREPARED_STATEMENTS: 'off' }).preparedStatements, false);
    assert.throws(() => createConfig({ PREPARED_STATEMENTS: 'sometimes' }), /PREPARED_STATEMENTS must be on or off/);
    assert.ok(Object.isFrozen(config));
  });

  it('reads durations and sizes', () => {
    assert.deepEqual(
      ['30s', '15m', '1h', '1d', '45', '250ms'].map(parseDuration),
      [30_000, 900_000, 3_600_000, 86_400_000, 45_000, 250],
    );
    assert.deepEqual(['1024', '50MiB', '10mb', '1kb'].map(parseSize), [1_024, 52_428_800, 10_000_000, 1_000]);
    assert.equal(parseDuration('soon'), null);
    assert.equal(createConfig({ TRACK_INTERVAL: '1s' }).trackIntervalMs, 1_000);
  });

  it('lists every problem on its own line', () => {
    try {
      createConfig({
        PORT: 'eighty',
        ADMIN_API_KEY: 'short',
        TRACK_INTERVAL: '0s',
        DEFAULT_PLATFORM: 'myspace',
        DATABASE_URL: 'mysql://x',
        TRACKER: 'maybe',
      });
      assert.fail('should have thrown');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 6);
      assert.ok(error.problems.some((p) => p.startsWith('ADMIN_API_KEY is too weak')));
      assert.ok(error.problems.every((p) => !p.includes('\n')));
    }
  });

  it('trusts only the proxies it is told about', () => {
    assert.equal(createConfig({}).trustProxy, false);
    assert.equal(createConfig({ TRUST_PROXY: 'on' }).trustProxy, 1);
    assert.equal(createConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(createConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, '10.0.0.0/8,127.0.0.1');
    assert.throws(() => createConfig({ TRUST_PROXY: 'everyone' }), /TRUST_PROXY/);
  });

  it('reads the scale-out settings, within their bounds', () => {
    const config = createConfig({ DATABASE_POOL_SIZE: '25', TRACK_CONCURRENCY: '8' });
    assert.equal(config.databasePoolSize, 25);
    assert.equal(config.trackConcurrency, 8);
    assert.throws(() => createConfig({ DATABASE_POOL_SIZE: '0' }), /DATABASE_POOL_SIZE/);
    assert.throws(() => createConfig({ TRACK_CONCURRENCY: 'many' }), /TRACK_CONCURRENCY/);
  });

  it('requires KEY_HASH_SECRET on PostgreSQL', () => {
    assert.throws(() => createConfig({ DATABASE_URL: 'postgres://localhost/perch' }), /KEY_HASH_SECRET is required/);
  });

  it('documents every variable it reads in .env.example', () => {
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const read = new Set(
      [...source.matchAll(/(?:text|integer|duration|size|url|flag|proxies)\('([A-Z_]+)'/g)].map((m) => m[1]),
    );
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    const documented = new Set([...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
    assert.ok(read.size >= 15);
    assert.deepEqual(
      [...read].filter((name) => !documented.has(name)),
      [],
    );
    assert.deepEqual(
      RETAINED_TABLES.map(retentionSetting).filter((name) => !documented.has(name)),
      [],
    );
  });
});
