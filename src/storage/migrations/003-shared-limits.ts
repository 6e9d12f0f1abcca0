// What several processes must agree on, kept in the store: the platforms' rate-limit windows, the
// API's per-key request counts and failed-authentication counts, and which trackers are alive.
// The counters are scratch data: PostgreSQL keeps them in unlogged tables (no WAL, emptied after
// a server crash, which only forgets a minute of counting).
import type { Kysely, Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function sharedLimitsSchema(caps: DialectCapabilities): Migration {
  const scratch = (db: Kysely<any>, name: string) => {
    const table = db.schema.createTable(name);
    return caps.unloggedTable ? table.modifyFront(caps.unloggedTable) : table;
  };
  return {
    async up(db: Kysely<any>) {
      // One row per rate-limited endpoint group of one platform credential. `remaining` counts
      // down as trackers reserve requests, and is lowered (never raised) by the platform's headers
      // within a window; `probe_until` lets one request learn an unknown window; a 429 sets
      // `blocked_until`.
      await scratch(db, 'rate_windows')
        .addColumn('window_key', 'text', (c) => c.primaryKey())
        .addColumn('limit_count', 'bigint')
        .addColumn('remaining', 'bigint')
        .addColumn('reset_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('probe_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      // Fixed-window request counts per API key (or client address before authentication).
      await scratch(db, 'api_rate_counters')
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('hits', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('api_rate_counters_pk', ['bucket', 'window_start'])
        .execute();

      // Failed authentications per client address and window.
      await scratch(db, 'auth_failures')
        .addColumn('client', 'text', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('failures', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('auth_failures_pk', ['client', 'window_start'])
        .execute();

      // Every tracker writes a heartbeat with its running totals, so health and metrics on any
      // process show which trackers are alive and how the work is shared.
      await db.schema
        .createTable('tracker_processes')
        .addColumn('owner', 'text', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('seen_at', 'bigint', (c) => c.notNull())
        .addColumn('stopped_at', 'bigint')
        .addColumn('checks', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('batches', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
