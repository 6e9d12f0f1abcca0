// The frames a Jetstream server sends (github.com/bluesky-social/jetstream, pkg/models): commits of
// repository records, identity changes and account status changes, each stamped with `time_us`,
// and the subscriber's filter (wantedCollections, wantedDids) they pass through.

export interface JetstreamCommit {
  rev: string;
  operation: 'create' | 'update' | 'delete';
  collection: string;
  rkey: string;
  record?: Record<string, unknown>;
  cid?: string;
}

export type JetstreamEvent =
  | { did: string; time_us: number; kind: 'commit'; commit: JetstreamCommit }
  | {
      did: string;
      time_us: number;
      kind: 'identity';
      identity: { did: string; handle?: string; seq: number; time: string };
    }
  | {
      did: string;
      time_us: number;
      kind: 'account';
      account: { active: boolean; did: string; seq: number; time: string; status?: string };
    };

/** What a subscriber asked for: collections (exact NSIDs or `prefix.*`) and DIDs; empty lists mean all. */
export interface JetstreamFilter {
  collections: readonly string[];
  dids: ReadonlySet<string>;
}

/** Most DIDs and collections one subscriber may ask for (Jetstream's own limits). */
export const MAX_WANTED_DIDS = 10_000;
export const MAX_WANTED_COLLECTIONS = 100;

export function collectionWanted(wanted: readonly string[], collection: string): boolean {
  if (wanted.length === 0) return true;
  return wanted.some((w) => (w.endsWith('.*') ? collection.startsWith(w.slice(0, -1)) : w === collection));
}

/** Identity and account events pass the DID filter only; commits the collection filter too. */
export function passes(filter: JetstreamFilter, event: JetstreamEvent): boolean {
  if (filter.dids.size > 0 && !filter.dids.has(event.did)) return false;
  return event.kind !== 'commit' || collectionWanted(filter.collections, event.commit.collection);
}

/**
 * A filter from an options_update payload (`{ wantedCollections?, wantedDids?, maxMessageSizeBytes? }`),
 * or the reason it is refused.
 */
export function filterFromOptions(payload: unknown): JetstreamFilter | string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'payload must be an object';
  const { wantedCollections, wantedDids } = payload as Record<string, unknown>;
  const strings = (value: unknown): string[] | null =>
    value === undefined ? [] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;
  const collections = strings(wantedCollections);
  const dids = strings(wantedDids);
  if (collections === null || dids === null) return 'wantedCollections and wantedDids must be lists of strings';
  if (collections.length > MAX_WANTED_COLLECTIONS) return `at most ${MAX_WANTED_COLLECTIONS} wantedCollections`;
  if (dids.length > MAX_WANTED_DIDS) return `at most ${MAX_WANTED_DIDS} wantedDids`;
  return { collections, dids: new Set(dids) };
}
