// Followers known only by their DID (a live follow's frame names no handle): a partial index finds
// them, so the follower job names them without scanning every follower row.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function unnamedFollowersSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      // Current rows only: a follower lost before being named is never asked for.
      await sql`create index followers_unnamed on followers (follower_id)
        where handle = follower_id and gone_at is null`.execute(db);
    },
  };
}
