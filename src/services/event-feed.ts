// The one poller of a process's event streams: it reads what is new once a second and fans it out
// to every open stream, so a thousand quiet streams cost one query a second, not a thousand. It
// also counts the streams (per key and in all) and ends a key's streams when it is revoked here.
//
// States:
//   IDLE     no stream is open; nothing polls.
//   POLLING  at least one stream is open: every `pollMs` (src/every.ts) it reads the events after
//            `head`, keeps the newest ones (`recent`) and wakes the streams.
//   CLOSED   close() ended every stream and the poller; open() refuses from then on.
// A stream whose cursor is behind `recent` (catching up, or filtered past it) reads the store
// itself, paced by its socket (http/routes/event-stream.ts); once it has caught up it is served
// from `recent` without a query of its own.
import { every, type Every } from '../every.ts';
import type { StoredEvent } from '../storage/events-repo.ts';
import type { EventQuery } from '../storage/events-list.ts';
import type { Store } from '../storage/store.ts';
import { currentEventPosition, readEvents } from './events.ts';

export interface StreamLimits {
  /** Open streams one key may hold on this process (EVENT_STREAMS_PER_KEY). */
  perKey: number;
  /** Open streams on this process (EVENT_STREAMS_MAX). */
  max: number;
}

export type EventFilter = Pick<EventQuery, 'types' | 'platform' | 'usernameKey'>;

/** One open stream as the feed knows it: whose it is, and how to end it. */
export interface FeedStream {
  readonly keyId: string;
  /** Aborted when the stream must end: its key was revoked here, or the feed closed. */
  readonly ended: AbortSignal;
}

interface Entry extends FeedStream {
  end: AbortController;
}

/** How many of the newest events the feed keeps for streams that have caught up. */
const RECENT = 1_000;

export class EventFeed {
  private readonly streams = new Set<Entry>();
  private readonly perKey = new Map<string, number>();
  private poller: Every | null = null;
  /** Bumped when the poller stops, so that a poll still running then changes nothing. */
  private generation = 0;
  private closed = false;
  /** Every event up to `head` has been read (null until the first poll); `recent` holds those after `recentFrom`. */
  private head: number | null = null;
  private recentFrom = 0;
  private recent: StoredEvent[] = [];
  private news = deferred();

  constructor(
    private readonly store: Store,
    private readonly limits: StreamLimits,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A new stream of `keyId`, or why not: this key or this process already has all it may. */
  open(keyId: string): FeedStream | 'per_key' | 'process' {
    if (this.closed || this.streams.size >= this.limits.max) return 'process';
    const held = this.perKey.get(keyId) ?? 0;
    if (held >= this.limits.perKey) return 'per_key';
    this.perKey.set(keyId, held + 1);
    const end = new AbortController();
    const entry: Entry = { keyId, end, ended: end.signal };
    this.streams.add(entry);
    this.poller ??= every(this.pollMs, () => this.poll(), { firstAfterMs: 0, onError: this.onError });
    return entry;
  }

  /** The stream has ended (whatever ended it); the last one stops the poller. */
  release(stream: FeedStream): void {
    const entry = stream as Entry;
    if (!this.streams.delete(entry)) return;
    const held = (this.perKey.get(entry.keyId) ?? 1) - 1;
    if (held > 0) this.perKey.set(entry.keyId, held);
    else this.perKey.delete(entry.keyId);
    if (this.streams.size === 0) void this.stopPolling();
  }

  /** Ends every stream of a key at once (it was revoked through this process). */
  endStreamsOf(keyId: string): void {
    for (const entry of this.streams) if (entry.keyId === keyId) entry.end.abort();
  }

  /** How many streams are open, in all and for one key. */
  count(keyId?: string): number {
    return keyId === undefined ? this.streams.size : (this.perKey.get(keyId) ?? 0);
  }

  /** The position up to which every event has been read, or null before the first poll. */
  get position(): number | null {
    return this.head;
  }

  /**
   * What a stream at `after` gets from the kept events: those that pass its filter and the
   * position it has then read up to; null when `after` is older than what is kept (read the store).
   */
  eventsAfter(after: number, filter: EventFilter): { events: StoredEvent[]; upTo: number } | null {
    if (this.head === null || after < this.recentFrom) return null;
    const events = this.recent.filter((event) => event.seq > after && matches(event, filter));
    return { events, upTo: Math.max(after, this.head) };
  }

  /** Resolves after the next poll that read something (or the first one). */
  nextNews(): Promise<void> {
    return this.news.promise;
  }

  /** Ends every stream and the poller. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.streams) entry.end.abort();
    await this.stopPolling();
  }

  private async stopPolling(): Promise<void> {
    const poller = this.poller;
    this.poller = null;
    this.generation += 1;
    this.head = null;
    this.recent = [];
    await poller?.stop();
  }

  private async poll(): Promise<void> {
    const generation = this.generation;
    if (this.head === null) {
      const head = await currentEventPosition(this.store);
      if (generation !== this.generation) return;
      this.head = head;
      this.recentFrom = head;
      return this.announce();
    }
    const page = await readEvents(this.store, { after: this.head, limit: RECENT });
    if (generation !== this.generation || page.data.length === 0) return;
    this.recent = [...this.recent, ...page.data];
    if (this.recent.length > RECENT) {
      const dropped = this.recent.splice(0, this.recent.length - RECENT);
      this.recentFrom = dropped.at(-1)?.seq ?? this.recentFrom;
    }
    this.head = page.nextSeq;
    this.announce();
  }

  private announce(): void {
    const news = this.news;
    this.news = deferred();
    news.resolve();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The filters of GET /api/events, applied to an event in memory. */
function matches(event: StoredEvent, filter: EventFilter): boolean {
  if (filter.types !== undefined && filter.types.length > 0 && !filter.types.includes(event.type)) return false;
  if (filter.platform === undefined && filter.usernameKey === undefined) return true;
  const account = event.data.account as { platform?: string; username?: string } | undefined;
  if (filter.platform !== undefined && account?.platform !== filter.platform) return false;
  return filter.usernameKey === undefined || account?.username?.toLowerCase() === filter.usernameKey;
}
