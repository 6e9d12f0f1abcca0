// Post metrics that stay true: when each post's metrics were last read, whether the platform still
// shows it (deleted or hidden posts are marked, not left with stale numbers), and a bounded
// history of its metrics at fixed ages.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function postRefreshSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      // SQLite adds a NOT NULL column only with a default: 0, then the time of the first read.
      await db.schema
        .alterTable('posts')
        .addColumn('metrics_observed_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db
        .updateTable('posts')
        .set({ metrics_observed_at: sql.ref('fetched_at') })
        .execute();
      await db.schema
        .alterTable('posts')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('live'))
        .execute();
      await db.schema.alterTable('posts').addColumn('status_at', 'bigint').execute();
      await db.schema
        .alterTable('posts')
        .addColumn('metrics_history', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
  };
}
