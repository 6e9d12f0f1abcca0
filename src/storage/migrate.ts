// Runs the schema migrations, in order, once; safe to call from several processes at start.
import { Migrator, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { Database } from './schema.ts';
import { initialSchema } from './migrations/001-initial.ts';
import { trackingSchema } from './migrations/002-tracking.ts';
import { sharedLimitsSchema } from './migrations/003-shared-limits.ts';
import { boundedGrowthSchema } from './migrations/004-bounded-growth.ts';
import { postRefreshSchema } from './migrations/005-post-refresh.ts';
import { eventsWebhooksSchema } from './migrations/006-events-webhooks.ts';
import { budgetGrantAndDueWakeups } from './migrations/007-budget-grant-and-due-wakeups.ts';
import { uiSessionsSchema } from './migrations/008-ui-sessions.ts';
import { spendLedgerSchema } from './migrations/009-spend-ledger.ts';
import { filterIndexesSchema } from './migrations/010-filter-indexes.ts';
import { jetstreamSchema } from './migrations/011-jetstream.ts';
import { streamHardeningSchema } from './migrations/012-stream-hardening.ts';
import { followersSchema } from './migrations/013-followers.ts';
import { mailDigestsSchema } from './migrations/014-mail-digests.ts';
import { moversAndTotalsSchema } from './migrations/015-movers-and-totals.ts';
import { alertRulesSchema } from './migrations/016-alert-rules.ts';
import { followRecordsSchema } from './migrations/017-follow-records.ts';
import { rulesVersionSchema } from './migrations/018-rules-version.ts';
import { unnamedFollowersSchema } from './migrations/019-unnamed-followers.ts';
import { resolvedIdsIndexSchema } from './migrations/020-resolved-ids-index.ts';

function migrations(caps: DialectCapabilities): Record<string, Migration> {
  return {
    '001-initial': initialSchema(caps),
    '002-tracking': trackingSchema(),
    '003-shared-limits': sharedLimitsSchema(caps),
    '004-bounded-growth': boundedGrowthSchema(),
    '005-post-refresh': postRefreshSchema(),
    '006-events-webhooks': eventsWebhooksSchema(caps),
    '007-budget-grant-and-due-wakeups': budgetGrantAndDueWakeups(caps),
    '008-ui-sessions': uiSessionsSchema(),
    '009-spend-ledger': spendLedgerSchema(),
    '010-filter-indexes': filterIndexesSchema(caps),
    '011-jetstream': jetstreamSchema(),
    '012-stream-hardening': streamHardeningSchema(),
    '013-followers': followersSchema(),
    '014-mail-digests': mailDigestsSchema(caps),
    '015-movers-and-totals': moversAndTotalsSchema(),
    '016-alert-rules': alertRulesSchema(),
    '017-follow-records': followRecordsSchema(),
    '018-rules-version': rulesVersionSchema(caps),
    '019-unnamed-followers': unnamedFollowersSchema(),
    '020-resolved-ids-index': resolvedIdsIndexSchema(),
  };
}

/** Brings the schema up to date; throws with the failing migration's name. */
// The migrator looks its bookkeeping tables up through the catalogue of every schema, which fails
// if another client drops a schema at that moment. Each migration runs in its own transaction and
// is recorded, so trying again is safe; a migration that is really broken fails every time.
const ATTEMPTS = 3;

export async function migrateToLatest(db: Kysely<Database>, caps: DialectCapabilities): Promise<string[]> {
  const schema = await caps.currentSchema(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(caps) },
    // Numbers are reserved per feature and land in any order (016 before 014): a store that ran a
    // later one still takes an earlier one that arrives after it.
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt += 1) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= ATTEMPTS) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(`migration ${failed} failed`, { cause: error });
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}
