// The Jetstream shards' table (migration 011) as Kysely sees it; part of `Database`.
import type { Generated } from 'kysely';

export interface StreamShardsTable {
  stream: string;
  shard: number;
  shards: number;
  /** The last applied frame's time_us (µs since the epoch), or null before the first. */
  cursor_us: number | null;
  /** Until when (epoch ms) the shard's connection counts as healthy: polling skips its timelines. */
  healthy_until: number | null;
  connected_at: number | null;
  reconnects: Generated<number>;
  gaps: Generated<number>;
  gap_found_at: number | null;
  gap_from_us: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  updated_at: number;
}

export interface StreamTables {
  stream_shards: StreamShardsTable;
}
