// X user lookups, by name (`GET /2/users/by`) or id (`GET /2/users`), 100 values a request. X
// refuses a whole request with 400 when one value is malformed: the values it names become
// `invalid` and the rest is asked again, so one bad name never fails its batch.
// https://docs.x.com/x-api/users/get-users-by-usernames
import { PlatformError, type CallOptions, type CallResult, type LookupOutcome, type RateLimitInfo } from './types.ts';
import { failUnlessOk, withReads, xGet, type XConnection } from './x-request.ts';
import { outcomeOfProblem, parseInvalidRequest, parseUsersPage, USER_FIELDS } from './x-wire.ts';

/** X takes up to 100 names or ids per lookup request. */
export const X_BATCH_SIZE = 100;

export type LookupParameter = 'usernames' | 'ids';

/** One lookup call in progress: what is wanted, what is known, what is still to ask. */
interface LookupRun {
  connection: XConnection;
  path: string;
  parameter: LookupParameter;
  call: CallOptions;
  /** Lower-cased key → the value as asked. */
  wanted: Map<string, string>;
  outcomes: Map<string, LookupOutcome>;
  /** Batches still to send; a refused batch puts its remainder (or halves) back in front. */
  queue: string[][];
  rateLimit: RateLimitInfo | null;
}

/** Outcomes for every distinct value asked (keyed lower-case), over as many requests as it takes. */
export async function lookupUsers(
  connection: XConnection,
  path: string,
  parameter: LookupParameter,
  values: readonly string[],
  call: CallOptions,
): Promise<CallResult<Map<string, LookupOutcome>>> {
  const run: LookupRun = {
    connection,
    path,
    parameter,
    call,
    wanted: new Map(),
    outcomes: new Map(),
    queue: [],
    rateLimit: null,
  };
  for (const value of values) {
    const key = value.toLowerCase();
    if (run.wanted.has(key) || run.outcomes.has(key)) continue;
    // A comma would split into two values on the wire; an empty value is no value at all.
    if (value.trim() === '' || value.includes(','))
      run.outcomes.set(key, { kind: 'invalid', reason: `not a valid X ${parameter === 'ids' ? 'id' : 'username'}` });
    else run.wanted.set(key, value);
  }
  const all = [...run.wanted.values()];
  for (let i = 0; i < all.length; i += X_BATCH_SIZE) run.queue.push(all.slice(i, i + X_BATCH_SIZE));
  let reads = 0;
  let answered = 0;
  try {
    for (let batch = run.queue.shift(); batch !== undefined; batch = run.queue.shift()) {
      reads += await lookupOne(run, batch);
      answered += 1;
    }
  } catch (error) {
    // A request after the first (a batch asked again after a 400, the next batch of 100) found no
    // room in the rate-limit window: what was learnt is kept, the rest waits for its next check.
    // Throwing it all away would ask the same first request again in every window.
    if (!(error instanceof PlatformError) || error.kind !== 'rate_limited' || answered === 0)
      throw withReads(error, reads);
    for (const key of run.wanted.keys())
      if (!run.outcomes.has(key)) run.outcomes.set(key, { kind: 'unknown', reason: `not asked: ${error.message}` });
  }
  return { value: run.outcomes, rateLimit: run.rateLimit, reads };
}

/** One request for `batch`: records its outcomes (or queues what to ask again); returns the reads X billed. */
async function lookupOne(run: LookupRun, batch: string[]): Promise<number> {
  const query = `${run.parameter}=${batch.map(encodeURIComponent).join(',')}&user.fields=${USER_FIELDS}`;
  const answer = await xGet(run.connection, `${run.path}?${query}`, run.call);
  run.rateLimit = answer.rateLimit ?? run.rateLimit;
  const { response } = answer;
  if (response.status === 400) {
    splitRefused(run, batch, response.json);
    return 0;
  }
  failUnlessOk(run.connection, response, run.rateLimit);
  const page = parseUsersPage(response.json);
  const { wanted, outcomes } = run;
  const keyOf = (id: string | null, username: string | null): string | null =>
    run.parameter === 'ids' ? id : (username?.toLowerCase() ?? null);
  for (const user of page.users) {
    const key = keyOf(user.platformUserId, user.username);
    if (key !== null && wanted.has(key)) outcomes.set(key, { kind: 'found', user });
  }
  // A malformed user is this key's problem only; one the key cannot be read from is left to the
  // "neither a user nor an error" rule below.
  for (const record of page.unusable) {
    const key = keyOf(record.id, record.username);
    if (key !== null && wanted.has(key) && !outcomes.has(key))
      outcomes.set(key, { kind: 'unknown', reason: `the platform sent an unusable record: ${record.reason}` });
  }
  for (const problem of page.problems) {
    const key = problem.value?.toLowerCase();
    if (key !== undefined && wanted.has(key) && !outcomes.has(key)) outcomes.set(key, outcomeOfProblem(problem));
  }
  for (const value of batch) {
    const key = value.toLowerCase();
    if (!outcomes.has(key))
      outcomes.set(key, { kind: 'unknown', reason: 'X answered neither a user nor an error for it' });
  }
  return page.returned;
}

/**
 * A 400 for `batch`: the values X names become `invalid` and the rest goes back in the queue;
 * when X does not say which value it means, the batch is halved (a lone value is the culprit).
 */
function splitRefused(run: LookupRun, batch: string[], body: unknown): void {
  const refused = parseInvalidRequest(body, run.parameter);
  if (refused.otherParameter !== null) {
    throw new PlatformError('invalid_request', `X refused the request: ${refused.message ?? refused.otherParameter}`, {
      status: 400,
      rateLimit: run.rateLimit,
    });
  }
  const named = batch.filter((value) => refused.values.has(value.toLowerCase()));
  if (named.length > 0) {
    for (const value of named)
      run.outcomes.set(value.toLowerCase(), {
        kind: 'invalid',
        reason: refused.values.get(value.toLowerCase()) ?? 'refused by X',
      });
    const rest = batch.filter((value) => !refused.values.has(value.toLowerCase()));
    if (rest.length > 0) run.queue.unshift(rest);
  } else if (batch.length === 1) {
    run.outcomes.set(batch[0]!.toLowerCase(), { kind: 'invalid', reason: refused.message ?? 'refused by X' });
  } else {
    const half = Math.ceil(batch.length / 2);
    run.queue.unshift(batch.slice(0, half), batch.slice(half));
  }
}
