// Live follows on Bluesky between follower passes (DESIGN §11): one Jetstream connection on
// app.bsky.graph.follow with no DID filter (a follow is a record of the follower's repository, so
// only its subject says whom it is about; that is matched locally, apply-follows.ts). One process
// holds it under a lease (the `follows` row of stream_shards, which also keeps its cursor), so
// several workers never apply the same frames. A chore on src/every.ts keeps the lease, connects
// while any Bluesky account has its follower list on, announces changes that waited for their
// account's minute, and prunes tombstones past any replay.
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import { FOLLOW_COLLECTION, FOLLOWS_STREAM } from '../domain/stream-shards.ts';
import { every, type Every } from '../every.ts';
import type { FollowerRule } from '../storage/follower-claims-repo.ts';
import { anyLiveFollowSubject } from '../storage/live-follow-changes-repo.ts';
import { pruneFollowRecords } from '../storage/live-follows-repo.ts';
import {
  claimShards,
  ensureShards,
  releaseShards,
  resumeCursor,
  writeShardHealth,
  type ShardHealthWrite,
} from '../storage/stream-shards-repo.ts';
import type { Store } from '../storage/store.ts';
import { announceDueFollows, applyFollowFrames } from './apply-follows.ts';
import { JetstreamConnection } from './jetstream-connection.ts';
import type { StreamMetrics } from './metrics.ts';

/** Tombstones of deleted follow records are kept this long past the rewind (replays never reach further). */
const TOMBSTONE_MS = 3_600_000;

export interface FollowStreamOptions {
  store: Store;
  urls: readonly string[];
  rewindMs: number;
  owner: string;
  clock: SleepingClock;
  logger: Logger;
  /** Which accounts have their follower list on (the passes' rule). */
  rule: FollowerRule;
  metrics?: StreamMetrics;
  refreshMs?: number;
  leaseMs?: number;
}

export class FollowStream {
  private connection: JetstreamConnection | null = null;
  private chore: Every | null = null;
  private readonly refreshMs: number;
  private readonly leaseMs: number;

  constructor(private readonly options: FollowStreamOptions) {
    this.refreshMs = options.refreshMs ?? 2_000;
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  start(): void {
    this.chore ??= every(this.refreshMs, () => this.refresh(), {
      firstAfterMs: 0,
      onError: (error) =>
        this.options.logger.warn({ err: error }, 'follows stream refresh failed; tried again shortly'),
    });
  }

  /** Stops following; start() follows again from the stored cursor. */
  async stop(): Promise<void> {
    const chore = this.chore;
    this.chore = null;
    await chore?.stop();
    await this.disconnect();
    await releaseShards(this.options.store.db, FOLLOWS_STREAM, this.options.owner).catch(() => {});
  }

  /** Whether this process follows the stream now (tests, logs). */
  get following(): boolean {
    return this.connection?.state === 'open';
  }

  refreshNow(): Promise<void> {
    return this.chore?.runNow() ?? this.refresh();
  }

  private async refresh(): Promise<void> {
    const { store, owner, clock, rule } = this.options;
    const wanted = await anyLiveFollowSubject(store.reader, rule);
    await ensureShards(store.db, FOLLOWS_STREAM, 1, clock.now());
    const mine =
      wanted && (await claimShards(store.db, FOLLOWS_STREAM, owner, clock.now(), this.leaseMs, 1)).includes(0);
    if (!mine) {
      await this.disconnect();
      if (!wanted) await releaseShards(store.db, FOLLOWS_STREAM, owner);
      return;
    }
    if (!this.connection) {
      this.connection = this.connect();
      this.connection.start();
    }
    await writeShardHealth(store.db, FOLLOWS_STREAM, 0, owner, { healthyUntil: this.healthyUntil() }, clock.now());
    await announceDueFollows(store, clock);
    await pruneFollowRecords(store.db, (clock.now() - this.options.rewindMs - TOMBSTONE_MS) * 1000);
  }

  private healthyUntil(): number | null {
    return this.connection?.state === 'open' ? this.options.clock.now() + 3 * this.refreshMs : null;
  }

  private async disconnect(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    await connection?.stop();
  }

  private connect(): JetstreamConnection {
    const { store, owner, clock, logger, metrics, rule } = this.options;
    const health = (write: ShardHealthWrite) =>
      writeShardHealth(store.db, FOLLOWS_STREAM, 0, owner, write, clock.now()).catch((error: unknown) =>
        logger.warn({ err: error, stream: FOLLOWS_STREAM }, 'could not record the follows stream health'),
      );
    const connection = new JetstreamConnection({
      name: FOLLOWS_STREAM,
      urls: this.options.urls,
      collections: [FOLLOW_COLLECTION],
      dids: null,
      rewindUs: this.options.rewindMs * 1000,
      clock,
      logger,
      resumeFrom: () => resumeCursor(store.db, FOLLOWS_STREAM, 0, owner, clock.now() * 1000),
      onFrames: async (frames) => {
        const applied = await applyFollowFrames({ store, owner, clock, rule }, frames);
        metrics?.frames('follow', applied.gained + applied.lost);
      },
      hooks: {
        opened: (url, resumeUs) => {
          logger.info({ stream: FOLLOWS_STREAM, url, resumeUs }, 'follows stream connected');
          if (connection.reconnects > 0) metrics?.reconnect();
          void health({
            healthyUntil: clock.now() + 3 * this.refreshMs,
            connectedAt: clock.now(),
            reconnects: connection.reconnects > 0 ? 1 : 0,
          });
        },
        closed: (url) => {
          logger.info(
            { stream: FOLLOWS_STREAM, url },
            'follows stream disconnected; the next pass covers what it misses',
          );
          void health({ healthyUntil: null, connectedAt: null });
        },
        malformed: () => metrics?.frames('malformed', 1),
      },
    });
    return connection;
  }
}
