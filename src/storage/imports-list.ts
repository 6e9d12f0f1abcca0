// The record of past imports, newest first, in pages (the imports table; writes are in imports-repo.ts).
import type { Kysely } from 'kysely';
import type { ImportCounts } from './imports-repo.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface ImportRecord extends ImportCounts {
  id: string;
  createdAt: string;
  createdBy: string | null;
  source: string;
  received: number;
  accepted: number;
  duplicates: number;
  rejectedCount: number;
  durationMs: number;
}

export async function listImports(
  db: Db,
  options: { limit: number; before?: readonly [number, string] },
): Promise<ImportRecord[]> {
  let query = db.selectFrom('imports').selectAll();
  if (options.before) {
    const [at, id] = options.before;
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]),
    );
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    createdAt: new Date(r.created_at).toISOString(),
    createdBy: r.created_by,
    source: r.source,
    received: r.received,
    accepted: r.accepted,
    inserted: r.inserted,
    reactivated: r.reactivated,
    alreadyTracked: r.already_tracked,
    duplicates: r.duplicates,
    rejectedCount: r.rejected_count,
    durationMs: r.duration_ms,
  }));
}
