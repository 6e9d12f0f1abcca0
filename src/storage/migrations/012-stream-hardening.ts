// Dashboard sessions opened with ADMIN_API_KEY remember a fingerprint of that key (a keyed hash,
// never the key), so changing ADMIN_API_KEY and restarting ends them. Sessions of stored keys
// leave it null: their key's row says whether they still hold.
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function streamHardeningSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('ui_sessions').addColumn('key_fingerprint', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('ui_sessions').dropColumn('key_fingerprint').execute();
    },
  };
}
