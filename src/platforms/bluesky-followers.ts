// One page of a Bluesky account's followers (app.bsky.graph.getFollowers), newest first, up to 100.
import type { FollowerIdentity } from '../domain/followers.ts';
import { parseProfile } from './bluesky-wire.ts';
import { body, DID_SYNTAX, xrpcGet, type BlueskyConnection, type Tally } from './bluesky-xrpc.ts';
import { PlatformError, type CallOptions, type CallResult, type FollowerPage } from './types.ts';

export const BLUESKY_FOLLOWER_PAGE = 100;

export async function readBlueskyFollowers(
  connection: BlueskyConnection,
  did: string,
  cursor: string | null,
  call: CallOptions,
): Promise<CallResult<FollowerPage>> {
  const method = 'app.bsky.graph.getFollowers';
  if (!DID_SYNTAX.test(did))
    throw new PlatformError('invalid_request', `${method}: ${JSON.stringify(did)} is not a DID`);
  const tally: Tally = { rateLimit: null, reads: 0 };
  const params: [string, string][] = [
    ['actor', did],
    ['limit', String(BLUESKY_FOLLOWER_PAGE)],
  ];
  if (cursor !== null) params.push(['cursor', cursor]);
  // An unknown or taken-down actor is a 400 "Profile not found": thrown as invalid_request.
  const json = body(connection, await xrpcGet(connection, method, params, tally, call), method);
  const page = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : null;
  if (!page || !Array.isArray(page.followers))
    throw new PlatformError('bad_response', `${method}: no followers array`, { status: 200 });
  const followers: FollowerIdentity[] = [];
  for (const item of page.followers) {
    const profile = parseProfile(item);
    if (profile) followers.push({ platformUserId: profile.did, username: profile.handle });
  }
  const next = typeof page.cursor === 'string' && page.cursor !== '' && page.cursor !== cursor ? page.cursor : null;
  return { value: { followers, cursor: next }, rateLimit: tally.rateLimit, reads: followers.length };
}
