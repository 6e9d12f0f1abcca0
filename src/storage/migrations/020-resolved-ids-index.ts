// The index frames find their accounts through (platform, DID) holds only resolved accounts. An
// import adds every name with no platform id yet: a million equal (platform, null) keys made its
// interior pages split and rebalance long after SQLite had written them to the WAL, and SQLite's
// COMMIT then re-read the WAL to the end to rewrite its checksums (bench/README.md, 2026-12-04).
// Every lookup through it names an id, so none needs the unresolved rows.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function resolvedIdsIndexSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.dropIndex('accounts_platform_user_id').execute();
      await sql`create index accounts_platform_user_id on accounts (platform, platform_user_id)
        where platform_user_id is not null`.execute(db);
    },
  };
}
