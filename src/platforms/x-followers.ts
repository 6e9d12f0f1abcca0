// One page of an X user's followers (`GET /2/users/:id/followers`), newest first, up to 1,000:
// X bills every user a page returns. https://docs.x.com/x-api/users/get-followers
import type { FollowerIdentity } from '../domain/followers.ts';
import { PlatformError, type CallOptions, type CallResult, type FollowerPage } from './types.ts';
import { failUnlessOk, xGet, type XConnection } from './x-request.ts';
import { badShape, isObject, list, parseProblem, str } from './x-wire.ts';

export const X_FOLLOWER_PAGE = 1_000;

export async function readXFollowers(
  connection: XConnection,
  userId: string,
  cursor: string | null,
  call: CallOptions,
): Promise<CallResult<FollowerPage>> {
  let query = `max_results=${X_FOLLOWER_PAGE}`;
  if (cursor !== null) query += `&pagination_token=${encodeURIComponent(cursor)}`;
  const answer = await xGet(connection, `/2/users/${encodeURIComponent(userId)}/followers?${query}`, call);
  const { rateLimit } = answer;
  failUnlessOk(connection, answer.response, rateLimit);
  const body: unknown = answer.response.json;
  if (!isObject(body)) throw badShape('the body is not a JSON object');
  if (body.data !== undefined && !Array.isArray(body.data)) throw badShape('data is not an array');
  const data = list(body.data);
  const problem = list(body.errors).map(parseProblem)[0];
  // A suspended or deleted user: X answers 200 with only an error; asking again won't help.
  if (data.length === 0 && problem)
    throw new PlatformError('invalid_request', `X refused the followers: ${problem.detail ?? problem.title ?? '?'}`, {
      status: answer.response.status,
      rateLimit,
    });
  const followers: FollowerIdentity[] = [];
  for (const item of data) {
    const id = isObject(item) ? str(item.id) : null;
    const username = isObject(item) ? str(item.username) : null;
    if (id !== null && username !== null) followers.push({ platformUserId: id, username });
  }
  const meta = isObject(body.meta) ? body.meta : {};
  const next = str(meta.next_token);
  // Every item of `data` is billed, usable or not.
  return { value: { followers, cursor: next }, rateLimit, reads: data.length };
}
