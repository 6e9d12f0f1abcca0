// Bluesky in real time (DESIGN.md §10): the tracked DIDs split into shards (domain/stream-shards.ts),
// each shard this process holds under a lease followed on one Jetstream connection, its frames
// applied with its cursor (apply-frames.ts), and its health written for polling, health and metrics
// on every process. A chore on src/every.ts keeps the plan: new or removed DIDs re-send only their
// shard's options_update; the leases are renewed; a dead owner's shards are taken over when its
// leases expire; an open gap is closed once its accounts' timelines were read again.
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import {
  JETSTREAM_RETENTION_MS,
  planShards,
  POST_COLLECTION,
  POSTS_STREAM,
  PROFILE_COLLECTION,
  SHARD_SIZE,
} from '../domain/stream-shards.ts';
import { every, type Every } from '../every.ts';
import type { Store } from '../storage/store.ts';
import { countUncheckedSince, makeDueByDid, trackedDids } from '../storage/stream-accounts-repo.ts';
import {
  claimShards,
  ensureShards,
  readShards,
  releaseShards,
  resumeCursor,
  writeShardHealth,
  type ShardHealthWrite,
} from '../storage/stream-shards-repo.ts';
import { loadTextModels } from '../tracker/text-models.ts';
import { applyFrames } from './apply-frames.ts';
import type { StreamFrame } from './frames.ts';
import { JetstreamConnection } from './jetstream-connection.ts';
import type { StreamMetrics } from './metrics.ts';

export interface BlueskyStreamOptions {
  store: Store;
  urls: readonly string[];
  rewindMs: number;
  owner: string;
  clock: SleepingClock;
  logger: Logger;
  /** Wakes the tracker: accounts were made due at once. */
  wakeTracker(): void;
  /** How many shards this process may hold (all of them under `perch serve`). */
  fairShare(shards: number): Promise<number>;
  postsPerAccount: number;
  intervalMs: number;
  metrics?: StreamMetrics;
  /** How often the plan, the leases and the health are kept (tests: shorter). */
  refreshMs?: number;
  leaseMs?: number;
  shardSize?: number;
}

interface Held {
  connection: JetstreamConnection;
  dids: readonly string[];
}

export class BlueskyStream {
  private readonly held = new Map<number, Held>();
  private plan: string[][] = [];
  private chore: Every | null = null;
  private readonly refreshMs: number;
  private readonly leaseMs: number;

  constructor(private readonly options: BlueskyStreamOptions) {
    this.refreshMs = options.refreshMs ?? 2_000;
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  start(): void {
    this.chore ??= every(this.refreshMs, () => this.refresh(), {
      firstAfterMs: 0,
      onError: (error) => this.options.logger.warn({ err: error }, 'stream refresh failed; tried again shortly'),
    });
  }

  /** Stops following; start() may follow again (from the stored cursors). */
  async stop(): Promise<void> {
    const chore = this.chore;
    this.chore = null;
    await chore?.stop();
    await Promise.all([...this.held.values()].map((h) => h.connection.stop()));
    this.held.clear();
    await releaseShards(this.options.store.db, POSTS_STREAM, this.options.owner).catch(() => {});
  }

  /** The shards this process holds, for tests and logs. */
  heldShards(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /** Runs the chore now (tests: no waiting for its period). */
  refreshNow(): Promise<void> {
    return this.chore?.runNow() ?? this.refresh();
  }

  private async refresh(): Promise<void> {
    const { store, owner, clock } = this.options;
    const dids = await trackedDids(store.reader);
    const plan = planShards(dids, this.options.shardSize ?? SHARD_SIZE);
    const resharded = await ensureShards(store.db, POSTS_STREAM, plan.length, clock.now());
    if (resharded || plan.length !== this.plan.length) await this.dropAll();
    this.plan = plan;
    const most = await this.options.fairShare(plan.length);
    const mine = new Set(await claimShards(store.db, POSTS_STREAM, owner, clock.now(), this.leaseMs, most));
    for (const [shard, held] of this.held)
      if (!mine.has(shard)) {
        this.held.delete(shard);
        await held.connection.stop();
      }
    const rows = new Map((await readShards(store.reader, POSTS_STREAM)).map((r) => [r.shard, r]));
    for (const shard of mine) {
      const shardDids = plan[shard] ?? [];
      let held = this.held.get(shard);
      if (!held && shardDids.length > 0) {
        held = { connection: this.connect(shard, shardDids), dids: shardDids };
        this.held.set(shard, held);
        held.connection.start();
      } else if (held && !sameList(held.dids, shardDids)) {
        held.dids = shardDids;
        held.connection.setDids(shardDids);
      }
      const row = rows.get(shard);
      const write: ShardHealthWrite = {
        healthyUntil: held?.connection.state === 'open' ? clock.now() + 3 * this.refreshMs : null,
      };
      if (row?.gapFoundAt != null) {
        const left = await countUncheckedSince(store.reader, shardDids, row.gapFoundAt);
        if (left === 0 || clock.now() - row.gapFoundAt > 2 * this.options.intervalMs) write.gap = 'closed';
      }
      await writeShardHealth(store.db, POSTS_STREAM, shard, owner, write, clock.now());
    }
    const lags = [...this.held.values()].flatMap((h) =>
      h.connection.lastTimeUs === null ? [] : [clock.now() / 1000 - h.connection.lastTimeUs / 1e6],
    );
    this.options.metrics?.lag(lags.length > 0 ? Math.max(0, ...lags) : null);
  }

  private async dropAll(): Promise<void> {
    await Promise.all([...this.held.values()].map((h) => h.connection.stop()));
    this.held.clear();
  }

  private connect(shard: number, dids: readonly string[]): JetstreamConnection {
    const { store, owner, clock, logger, metrics } = this.options;
    const name = `${POSTS_STREAM}/${shard}`;
    const health = (write: ShardHealthWrite) =>
      writeShardHealth(store.db, POSTS_STREAM, shard, owner, write, clock.now()).catch((error: unknown) =>
        logger.warn({ err: error, stream: name }, 'could not record the shard health'),
      );
    let models: Awaited<ReturnType<typeof loadTextModels>> | null = null;
    const connection = new JetstreamConnection({
      name,
      urls: this.options.urls,
      collections: [POST_COLLECTION, PROFILE_COLLECTION],
      dids,
      rewindUs: this.options.rewindMs * 1000,
      clock,
      logger,
      resumeFrom: () => resumeCursor(store.db, POSTS_STREAM, shard, owner, clock.now() * 1000),
      onFrames: async (frames: StreamFrame[]) => {
        models ??= await loadTextModels();
        const applied = await applyFrames(
          {
            store,
            stream: POSTS_STREAM,
            shard,
            owner,
            clock,
            models,
            postsPerAccount: this.options.postsPerAccount,
            toleranceMs: 2 * this.options.intervalMs,
          },
          frames,
        );
        for (const [kind, n] of countKinds(frames)) metrics?.frames(kind, n);
        if (applied.due > 0) this.options.wakeTracker();
      },
      hooks: {
        opened: (url, resumeUs) => {
          logger.info({ stream: name, url, resumeUs, dids: dids.length }, 'stream shard connected');
          if (connection.reconnects > 0) metrics?.reconnect();
          const tooOld = resumeUs !== null && clock.now() * 1000 - resumeUs > JETSTREAM_RETENTION_MS * 1000;
          // The gap is written first: polling must not skip the timelines the backfill reads.
          void health({
            healthyUntil: clock.now() + 3 * this.refreshMs,
            connectedAt: clock.now(),
            reconnects: connection.reconnects > 0 ? 1 : 0,
            ...(tooOld ? { gap: { fromUs: resumeUs, foundAt: clock.now() } } : {}),
          }).then(() =>
            tooOld
              ? this.backfill(name, shard, { resumeUs, reason: 'the cursor is older than Jetstream keeps' })
              : undefined,
          );
        },
        closed: (url) => {
          logger.info({ stream: name, url }, 'stream shard disconnected; polling covers it meanwhile');
          void health({ healthyUntil: null, connectedAt: null });
        },
        malformed: () => metrics?.frames('malformed', 1),
        resumedLate: async (resumeUs, firstUs) => {
          // A cursor too old was reported as the gap already, when the session opened.
          if (clock.now() * 1000 - resumeUs > JETSTREAM_RETENTION_MS * 1000) return;
          await health({
            healthyUntil: clock.now() + 3 * this.refreshMs,
            gap: { fromUs: resumeUs, foundAt: clock.now() },
          });
          await this.backfill(name, shard, { resumeUs, firstUs, reason: 'Jetstream resumed later than asked' });
        },
      },
    });
    return connection;
  }

  /**
   * A gap (the cursor is older than the server keeps, or the server resumed later than asked,
   * having forgotten the frames in between): the shard's accounts are made due now, and
   * while the gap is open polling reads their timelines (getAuthorFeed since their last post
   * read), which brings back what the stream could not.
   */
  private async backfill(name: string, shard: number, why: Record<string, unknown>): Promise<void> {
    const { store, clock, logger } = this.options;
    const dids = this.plan[shard] ?? [];
    logger.warn(
      { stream: name, accounts: dids.length, ...why },
      'stream gap: backfilling the shard’s accounts from the AppView',
    );
    await makeDueByDid(store.db, dids, clock.now()).catch((error: unknown) =>
      logger.warn({ err: error, stream: name }, 'could not schedule the gap backfill'),
    );
    this.options.wakeTracker();
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function countKinds(frames: readonly StreamFrame[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const frame of frames) counts.set(frame.kind, (counts.get(frame.kind) ?? 0) + 1);
  return counts;
}
