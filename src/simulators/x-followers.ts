// `GET /2/users/:id/followers` of the local X (https://docs.x.com/x-api/users/get-followers):
// newest follower first, `max_results` 1-1000 (100 by default), `pagination_token` from the last
// page's `meta.next_token`; `{ data, meta: { result_count, next_token? } }`, or only the errors
// for a user X does not show. Each user in `data` is billed (X pay-per-use).
import { fieldSet, notFound, pageToken, readPageToken, userJson } from './x-render.ts';
import { ID_PATTERN, type XWorld } from './x-world.ts';

export const FOLLOWER_PARAMETERS = ['max_results', 'pagination_token', 'expansions', 'tweet.fields', 'user.fields'];

type ErrorOf = (name: string, raw: string, message: string) => void;

/** Adds an error for each bad value of the path id, max_results and pagination_token. */
export function checkFollowerParameters(query: URLSearchParams, pathId: string | null, error: ErrorOf): void {
  if (pathId !== null && !ID_PATTERN.test(pathId))
    error('id', pathId, `The \`id\` query parameter value [${pathId}] does not match ${ID_PATTERN.source}`);
  const max = query.get('max_results');
  if (max !== null && !(/^[0-9]+$/.test(max) && Number(max) >= 1 && Number(max) <= 1000))
    error('max_results', max, `The \`max_results\` query parameter value [${max}] is not between 1 and 1000`);
  const token = query.get('pagination_token');
  if (token !== null && readPageToken(token) === null)
    error('pagination_token', token, `The \`pagination_token\` query parameter value [${token}] is not valid`);
}

/** The 200 body; parameters already validated. */
export function followersBody(
  world: XWorld,
  userId: string,
  query: URLSearchParams,
  postCountField: 'tweet_count' | 'post_count',
): Record<string, unknown> {
  const user = world.usersById.get(userId);
  if (!user || user.state !== 'active') return { errors: [notFound('id', userId)] };
  const token = query.get('pagination_token');
  const before = token === null ? null : Number(readPageToken(token));
  const page = world.graph.page(userId, before, Number(query.get('max_results') ?? '100'));
  const fields = fieldSet(query.get('user.fields'));
  const data = page.ids
    .map((id) => world.usersById.get(id))
    .filter((u) => u !== undefined && u.state === 'active')
    .map((u) => userJson(u!, fields, postCountField));
  const meta: Record<string, unknown> = { result_count: data.length };
  if (page.next !== null) meta.next_token = pageToken(String(page.next));
  return data.length > 0 ? { data, meta } : { meta };
}
