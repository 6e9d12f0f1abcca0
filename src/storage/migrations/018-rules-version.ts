// The alert rules' version (DESIGN §12): a counter the store bumps on every change to a rule, by
// any process and any statement (a trigger, not the repository), so a tracker keeps the enabled
// rules and their scope index in memory and reads one number per batch to know they still hold.
// The scope index table goes: a check no longer finds rules through the store.
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function rulesVersionSchema(caps: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('change_counters')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .execute();
      await sql`insert into change_counters (name, n) values ('alert_rules', 0)`.execute(db);
      await caps.installChangeCounter(db, 'alert_rules');
      await db.schema.dropTable('alert_rule_scopes').execute();
    },
  };
}
