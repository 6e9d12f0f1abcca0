// The read budget's reservation in one statement (the grant kept beside the count, so the upsert
// can return it), and, where the dialect can, trackers woken when accounts become due.
import type { Kysely, Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function budgetGrantAndDueWakeups(caps: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('platform_usage')
        .addColumn('last_grant', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      // PostgreSQL: a trigger announces accounts that became claimable (capabilities.ts says which).
      await caps.dueNotifications?.install(db);
    },
  };
}
