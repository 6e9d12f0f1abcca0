// Bluesky profile lookups: app.bsky.actor.getProfiles for up to 25 actors, and getProfile for
// each actor the batch left out, since only getProfile says why (taken down, deactivated, unknown).
import { validateUsername } from '../domain/usernames.ts';
import {
  parseProfile,
  parseProfiles,
  suspendingLabel,
  toPlatformUser,
  xrpcError,
  type ProfileView,
} from './bluesky-wire.ts';
import { body, DID_SYNTAX, xrpcGet, type BlueskyConnection, type Tally } from './bluesky-xrpc.ts';
import { PlatformError, type CallOptions, type CallResult, type LookupOutcome } from './types.ts';

/** app.bsky.actor.getProfiles takes at most 25 `actors` (lexicon maxLength). */
export const BLUESKY_BATCH_SIZE = 25;

interface Wanted {
  key: string;
  actor: string;
}

/** Outcomes for every distinct actor asked, keyed by the id (`byId`) or the lower-cased name. */
export async function lookupProfiles(
  connection: BlueskyConnection,
  requested: readonly string[],
  byId: boolean,
  call: CallOptions,
): Promise<CallResult<Map<string, LookupOutcome>>> {
  const outcomes = new Map<string, LookupOutcome>();
  const tally: Tally = { rateLimit: null, reads: 0 };
  const wanted: Wanted[] = [];
  const keys = new Set<string>();
  for (const raw of requested) {
    const key = byId ? raw : raw.toLowerCase();
    if (keys.has(key)) continue;
    keys.add(key);
    // One malformed actor would make the AppView refuse the whole batch: it is never sent.
    const actor = checkActor(raw, byId);
    if (typeof actor === 'string') wanted.push({ key, actor });
    else outcomes.set(key, actor);
  }
  for (let i = 0; i < wanted.length; i += BLUESKY_BATCH_SIZE) {
    await lookupBatch(connection, wanted.slice(i, i + BLUESKY_BATCH_SIZE), outcomes, tally, call);
  }
  return { value: outcomes, rateLimit: tally.rateLimit, reads: tally.reads };
}

async function lookupBatch(
  connection: BlueskyConnection,
  batch: Wanted[],
  outcomes: Map<string, LookupOutcome>,
  tally: Tally,
  call: CallOptions,
): Promise<void> {
  const method = 'app.bsky.actor.getProfiles';
  const response = await xrpcGet(
    connection,
    method,
    batch.map((w) => ['actors', w.actor]),
    tally,
    call,
  );
  let missing = batch;
  // A 400 on the batch (an actor the AppView refuses) must not fail the others: each is then
  // asked alone, and only the one at fault ends up unanswered.
  if (response.status !== 400) {
    const profiles = parseProfiles(body(connection, response, method));
    if (!profiles) throw new PlatformError('bad_response', `${method}: no profiles array`, { status: 200 });
    tally.reads += profiles.length;
    // A handle request is answered under the account's current handle and did, so match by
    // handle (case-insensitive) or, when a did was asked for, by did.
    const byDid = new Map(profiles.map((p) => [p.did, p]));
    const byHandle = new Map(profiles.map((p) => [p.handle.toLowerCase(), p]));
    missing = [];
    for (const wanted of batch) {
      const profile = wanted.actor.startsWith('did:') ? byDid.get(wanted.actor) : byHandle.get(wanted.actor);
      if (profile) outcomes.set(wanted.key, found(profile));
      else missing.push(wanted);
    }
  }
  for (const [i, wanted] of missing.entries()) {
    const budget = tally.rateLimit;
    if (budget && budget.remaining <= 0 && budget.resetAt > connection.now()) {
      for (const rest of missing.slice(i))
        outcomes.set(rest.key, { kind: 'unknown', reason: 'rate limit reached before the account could be checked' });
      return;
    }
    try {
      outcomes.set(wanted.key, await explain(connection, wanted.actor, tally, call));
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      // What was already learnt is kept; the rest waits for the next check.
      if (error.kind === 'rate_limited' && error.retryAt !== null) {
        tally.rateLimit = {
          limit: error.rateLimit?.limit ?? tally.rateLimit?.limit ?? 0,
          remaining: 0,
          resetAt: error.retryAt,
        };
      }
      for (const rest of missing.slice(i)) outcomes.set(rest.key, { kind: 'unknown', reason: error.message });
      return;
    }
  }
}

function found(profile: ProfileView): LookupOutcome {
  const label = suspendingLabel(profile);
  return label ? { kind: 'suspended', reason: `labelled ${label}` } : { kind: 'found', user: toPlatformUser(profile) };
}

/**
 * getProfiles leaves out, without a word, whatever it cannot show (taken down, deactivated,
 * unknown); getProfile says why (packages/bsky/src/api/app/bsky/actor/getProfile.ts).
 */
async function explain(
  connection: BlueskyConnection,
  actor: string,
  tally: Tally,
  call: CallOptions,
): Promise<LookupOutcome> {
  const method = 'app.bsky.actor.getProfile';
  const response = await xrpcGet(connection, method, [['actor', actor]], tally, call);
  if (response.status === 400) {
    const { error, message } = xrpcError(response.json);
    const reason = message ?? error ?? 'rejected';
    if (error === 'AccountTakedown') return { kind: 'suspended', reason };
    if (error === 'AccountDeactivated') return { kind: 'not_found', reason };
    if (/not found/i.test(reason)) return { kind: 'not_found', reason };
    return { kind: 'unknown', reason: `${error ?? 'InvalidRequest'}: ${reason}` };
  }
  const profile = parseProfile(body(connection, response, method));
  if (!profile) throw new PlatformError('bad_response', `${method}: not a profile`, { status: 200 });
  tally.reads += 1;
  return found(profile); // shown after all: it changed between the two requests
}

/** The actor to send, or the `invalid` outcome for a value the AppView would refuse. */
export function checkActor(raw: string, byId: boolean): string | LookupOutcome {
  if (byId || raw.toLowerCase().startsWith('did:')) {
    // A DID given as a name is compared case-insensitively like every name; an id is taken as is.
    const did = byId ? raw : raw.toLowerCase();
    return DID_SYNTAX.test(did) && did.length <= 2048 ? did : { kind: 'invalid', reason: 'not a valid DID' };
  }
  const check = validateUsername('bluesky', raw);
  return check.ok ? check.username : { kind: 'invalid', reason: check.reason };
}
