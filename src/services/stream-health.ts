// The `bluesky-stream` check of /api/health (DESIGN.md §10), read from the store so any process
// reports every shard, whoever owns it: shards connected, lag (now minus the last applied time_us),
// reconnects and gaps, and whether the follows stream is connected. `warn` while a shard is down (polling covers its accounts meanwhile) or a gap
// is being backfilled from the AppView.
import type { Clock } from '../clock.ts';
import { FOLLOWS_STREAM, POSTS_STREAM } from '../domain/stream-shards.ts';
import type { Store } from '../storage/store.ts';
import { readShards } from '../storage/stream-shards-repo.ts';

/** The shards' rows are a handful: read again after this long. */
const TTL_MS = 1_000;

export interface StreamHealth {
  status: 'pass' | 'warn';
  enabled: boolean;
  shards?: number;
  connected?: number;
  lagSeconds?: number | null;
  reconnects?: number;
  gaps?: number;
  /** The follows stream (live follower changes, DESIGN §11), once follower lists are kept. */
  follows?: { connected: boolean; lagSeconds: number | null };
  notes?: string[];
}

export function streamHealth(store: Store, clock: Clock, enabled: boolean): () => Promise<StreamHealth> {
  let cached: { at: number; value: StreamHealth } | null = null;
  const read = async (): Promise<StreamHealth> => {
    if (!enabled) return { status: 'pass', enabled };
    const now = clock.now();
    const [rows, [follows]] = await Promise.all([
      readShards(store.reader, POSTS_STREAM),
      readShards(store.reader, FOLLOWS_STREAM),
    ]);
    const lag = (cursorUs: number) => Math.max(0, Math.round((now - cursorUs / 1000) / 1000));
    const down = rows.filter((r) => r.healthyUntil === null || r.healthyUntil <= now);
    const gaps = rows.filter((r) => r.gapFoundAt !== null);
    const cursors = rows.flatMap((r) => (r.cursorUs === null ? [] : [r.cursorUs]));
    const notes: string[] = [];
    if (down.length > 0)
      notes.push(
        `${down.length} of ${rows.length} Jetstream shard(s) down (${down.map((r) => r.shard).join(', ')}): polling reads their accounts' timelines meanwhile`,
      );
    for (const gap of gaps)
      notes.push(
        `shard ${gap.shard}: gap since ${new Date(Math.floor((gap.gapFromUs ?? 0) / 1000)).toISOString()} (older than Jetstream keeps); backfilling from the AppView`,
      );
    return {
      status: notes.length > 0 ? 'warn' : 'pass',
      enabled,
      shards: rows.length,
      connected: rows.length - down.length,
      lagSeconds: cursors.length === 0 ? null : lag(Math.min(...cursors)),
      reconnects: rows.reduce((sum, r) => sum + r.reconnects, 0),
      gaps: rows.reduce((sum, r) => sum + r.gaps, 0),
      // Not a warning when down: the next follower pass finds what it missed.
      ...(follows
        ? {
            follows: {
              connected: follows.healthyUntil !== null && follows.healthyUntil > now,
              lagSeconds: follows.cursorUs === null ? null : lag(follows.cursorUs),
            },
          }
        : {}),
      ...(notes.length > 0 ? { notes } : {}),
    };
  };
  return async () => {
    const now = clock.now();
    if (cached && now - cached.at < TTL_MS) return cached.value;
    const value = await read().catch(() => ({ status: 'warn' as const, enabled, notes: ['the store did not answer'] }));
    cached = { at: now, value };
    return value;
  };
}
