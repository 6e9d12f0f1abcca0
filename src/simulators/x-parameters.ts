// The local X server's request validation, as X words its 400 `invalid-request` problems.
import { fieldSet, readPageToken } from './x-render.ts';
import type { XEndpoint } from './x-types.ts';
import { ID_PATTERN, USERNAME_PATTERN } from './x-world.ts';
import { checkFollowerParameters, FOLLOWER_PARAMETERS } from './x-followers.ts';

// Request validation, worded as X words its 400 `invalid-request` problems: one error per bad value,
// `parameters` holding the raw parameter, `message` naming the value.
const USER_FIELDS =
  'affiliation,connection_status,created_at,description,entities,id,is_identity_verified,location,most_recent_tweet_id,name,parody,pinned_tweet_id,profile_banner_url,profile_image_url,protected,public_metrics,receives_your_dm,subscription,subscription_type,url,username,verified,verified_followers_count,verified_type,withheld';
const TWEET_FIELDS =
  'article,attachments,author_id,card_uri,community_id,context_annotations,conversation_id,created_at,display_text_range,edit_controls,edit_history_tweet_ids,entities,geo,id,in_reply_to_user_id,lang,media_metadata,non_public_metrics,note_tweet,organic_metrics,possibly_sensitive,promoted_metrics,public_metrics,referenced_tweets,reply_settings,scopes,source,text,withheld';
const ALLOWED: Record<XEndpoint, string[]> = {
  users_by: ['usernames', 'expansions', 'tweet.fields', 'user.fields'],
  users: ['ids', 'expansions', 'tweet.fields', 'user.fields'],
  tweets_by_ids: ['ids', 'expansions', 'tweet.fields', 'user.fields', 'media.fields', 'place.fields', 'poll.fields'],
  followers: FOLLOWER_PARAMETERS,
  tweets: [
    'since_id',
    'until_id',
    'max_results',
    'pagination_token',
    'exclude',
    'start_time',
    'end_time',
    'expansions',
    'tweet.fields',
    'user.fields',
    'media.fields',
    'place.fields',
    'poll.fields',
  ],
};

interface ParameterError {
  parameters: Record<string, string[]>;
  message: string;
}

export function badParameters(
  endpoint: XEndpoint,
  query: URLSearchParams,
  pathId: string | null,
): Record<string, unknown> | null {
  const errors: ParameterError[] = [];
  const error = (name: string, raw: string, message: string): void => {
    errors.push({ parameters: { [name]: [raw] }, message });
  };
  for (const [name, raw] of query) {
    if (!ALLOWED[endpoint].includes(name))
      error(name, raw, `The query parameter [${name}] is not one of [${ALLOWED[endpoint].join(',')}]`);
  }
  for (const [name, valid] of [
    ['user.fields', USER_FIELDS],
    ['tweet.fields', TWEET_FIELDS],
  ] as const) {
    const raw = query.get(name);
    for (const field of fieldSet(raw)) {
      if (!valid.split(',').includes(field))
        error(name, raw ?? '', `The \`${name}\` query parameter value [${field}] is not one of [${valid}]`);
    }
  }
  if (endpoint === 'followers') checkFollowerParameters(query, pathId, error);
  else if (endpoint === 'tweets') {
    if (pathId !== null && !ID_PATTERN.test(pathId))
      error('id', pathId, `The \`id\` query parameter value [${pathId}] does not match ${ID_PATTERN.source}`);
    const max = query.get('max_results');
    if (max !== null && !(/^[0-9]+$/.test(max) && Number(max) >= 5 && Number(max) <= 100))
      error('max_results', max, `The \`max_results\` query parameter value [${max}] is not between 5 and 100`);
    const since = query.get('since_id');
    if (since !== null && !ID_PATTERN.test(since))
      error('since_id', since, `The \`since_id\` query parameter value [${since}] does not match ${ID_PATTERN.source}`);
    const token = query.get('pagination_token');
    if (token !== null && readPageToken(token) === null)
      error('pagination_token', token, `The \`pagination_token\` query parameter value [${token}] is not valid`);
  } else {
    // `/2/tweets` takes `ids` as `/2/users` does: 1 to 100 numeric ids.
    const name = endpoint === 'users_by' ? 'usernames' : 'ids';
    const pattern = endpoint === 'users_by' ? USERNAME_PATTERN : ID_PATTERN;
    const raw = query.get(name) ?? '';
    const values = raw === '' ? [] : raw.split(',');
    if (values.length === 0) error(name, raw, `The \`${name}\` query parameter can not be empty`);
    else if (values.length > 100)
      error(
        name,
        raw,
        `The number of values in the \`${name}\` query parameter list [${values.length}] is not between 1 and 100`,
      );
    else
      for (const value of values)
        if (!pattern.test(value))
          error(name, raw, `The \`${name}\` query parameter value [${value}] does not match ${pattern.source}`);
  }
  if (errors.length === 0) return null;
  return {
    errors,
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  };
}
