// Alert rules (DESIGN §12): the rules, the index a check finds them through (one row per account
// id, tag or platform of a rule's narrowest scope dimension, or one row for "every account"), and
// the last firing per rule and account, which bounds a rule to one firing per cooldown.
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function alertRulesSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('alert_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('metric', 'text', (c) => c.notNull())
        .addColumn('condition', 'text', (c) => c.notNull())
        .addColumn('cooldown_ms', 'bigint', (c) => c.notNull())
        .addColumn('recipients', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('alert_rule_scopes')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('rule_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('alert_rule_scopes_pkey', ['kind', 'value', 'rule_id'])
        .execute();
      await db.schema.createIndex('alert_rule_scopes_rule').on('alert_rule_scopes').column('rule_id').execute();
      await db.schema
        .createTable('alert_firings')
        .addColumn('rule_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('last_fired_at', 'bigint', (c) => c.notNull())
        .addColumn('fired_count', 'bigint', (c) => c.notNull())
        .addColumn('last_data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('alert_firings_pkey', ['rule_id', 'account_id'])
        .execute();
      await db.schema
        .createIndex('alert_firings_recent')
        .on('alert_firings')
        .columns(['rule_id', 'last_fired_at'])
        .execute();
    },
    async down(db: Kysely<any>) {
      for (const table of ['alert_firings', 'alert_rule_scopes', 'alert_rules'])
        await db.schema.dropTable(table).execute();
    },
  };
}
