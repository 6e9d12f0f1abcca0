// X's bill as perch sees it: per platform, UTC day and kind of resource, what was returned and what
// it costs (one row each, so the ledger stays a few rows a day at any number of accounts), and per
// account the UTC day its user was last billed, so a re-check the same day is known to be free.
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function spendLedgerSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('spend_ledger')
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('resources', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('spend_ledger_pkey', ['platform', 'day', 'kind'])
        .execute();
      await db.schema.alterTable('accounts').addColumn('billed_on', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('spend_ledger').execute();
      await db.schema.alterTable('accounts').dropColumn('billed_on').execute();
    },
  };
}
