// Jetstream frames read from the wire (github.com/bluesky-social/jetstream, pkg/models): every
// field is checked, as for any payload from outside. A frame that is not one is refused with a
// reason (the caller logs and skips it); a well-formed frame of a kind we do not use is `other`,
// whose time_us still moves the cursor.

export type StreamFrame =
  | {
      kind: 'commit';
      did: string;
      timeUs: number;
      operation: 'create' | 'update' | 'delete';
      collection: string;
      rkey: string;
      /** The record of a create or update; null on a delete. */
      record: Record<string, unknown> | null;
      cid: string | null;
    }
  | { kind: 'identity'; did: string; timeUs: number; handle: string | null }
  | { kind: 'account'; did: string; timeUs: number; active: boolean; status: string | null }
  | { kind: 'other'; did: string; timeUs: number };

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

// https://atproto.com/specs/did, https://atproto.com/specs/nsid, https://atproto.com/specs/record-key
const DID = /^did:[a-z]+:[a-zA-Z0-9._:%-]{1,2040}$/;
const NSID = /^[a-zA-Z]([a-zA-Z0-9-]{0,62})?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})?)+$/;
const RKEY = /^[a-zA-Z0-9._:~-]{1,512}$/;
const OPERATIONS = new Set(['create', 'update', 'delete']);

/** One frame's text as a StreamFrame, or the reason it is not one. */
export function parseFrame(raw: string): StreamFrame | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { error: 'not JSON' };
  }
  if (!isRecord(json)) return { error: 'not an object' };
  const did = text(json.did);
  if (did === null || !DID.test(did)) return { error: 'no valid did' };
  const timeUs = json.time_us;
  if (typeof timeUs !== 'number' || !Number.isSafeInteger(timeUs) || timeUs <= 0) return { error: 'no valid time_us' };
  switch (json.kind) {
    case 'commit':
      return commitFrame(did, timeUs, json.commit);
    case 'identity': {
      if (!isRecord(json.identity)) return { error: 'identity frame without identity' };
      // The handle may be missing, or `handle.invalid` when it failed verification: either way
      // the handle is resolved again from the AppView.
      const handle = text(json.identity.handle);
      return { kind: 'identity', did, timeUs, handle: handle === 'handle.invalid' ? null : handle };
    }
    case 'account': {
      const account = json.account;
      if (!isRecord(account) || typeof account.active !== 'boolean') return { error: 'account frame without active' };
      return { kind: 'account', did, timeUs, active: account.active, status: text(account.status) };
    }
    default:
      return typeof json.kind === 'string' ? { kind: 'other', did, timeUs } : { error: 'no kind' };
  }
}

function commitFrame(did: string, timeUs: number, commit: unknown): StreamFrame | { error: string } {
  if (!isRecord(commit)) return { error: 'commit frame without commit' };
  const { operation, collection, rkey } = commit;
  if (typeof operation !== 'string' || !OPERATIONS.has(operation)) return { error: 'no valid commit.operation' };
  if (typeof collection !== 'string' || !NSID.test(collection)) return { error: 'no valid commit.collection' };
  if (typeof rkey !== 'string' || !RKEY.test(rkey)) return { error: 'no valid commit.rkey' };
  const record = isRecord(commit.record) ? commit.record : null;
  if (operation !== 'delete' && record === null) return { error: `commit ${operation} without a record` };
  return {
    kind: 'commit',
    did,
    timeUs,
    operation: operation as 'create' | 'update' | 'delete',
    collection,
    rkey,
    record: operation === 'delete' ? null : record,
    cid: text(commit.cid),
  };
}
