// Reading tracked accounts as use cases: one, a batch, or a filtered page. Every account is shown
// with `analysis.stale` decided at read time.
import type { Account, AccountSort, AccountStatus } from '../domain/account.ts';
import { isStale, withStaleness } from '../domain/analysis.ts';
import type { Platform } from '../domain/platforms.ts';
import { countAccounts, listAccounts, type AccountFilter } from '../storage/accounts-list.ts';
import { findAccount, findAccountJson, findAccounts } from '../storage/accounts-repo.ts';
import { accountRef, notTracked, type NamedRef } from './account-refs.ts';
import type { ServiceDeps } from './context.ts';

/** An account as the API shows it: `analysis.stale` is decided at read time. */
export function present(account: Account, deps: ServiceDeps): Account {
  return withStaleness(account, deps.clock.now(), deps.config.trackIntervalMs);
}

/** One tracked account, or account_not_found. */
export async function getAccount(deps: ServiceDeps, ref: NamedRef): Promise<Account> {
  const account = await findAccount(deps.store.reader, ref);
  if (!account) throw notTracked(ref.name);
  return present(account, deps);
}

/**
 * One tracked account for the API to send: its JSON written from the stored text, without parsing
 * and serializing it again, or (when the stored form does not allow that) the Account for the
 * route's serializer.
 */
export async function getAccountAnswer(deps: ServiceDeps, ref: NamedRef): Promise<{ json: string } | Account> {
  const now = deps.clock.now();
  const { trackIntervalMs } = deps.config;
  const found = await findAccountJson(
    deps.store.reader,
    deps.store.caps,
    ref,
    (observedAt) => isStale(observedAt, now, trackIntervalMs),
    deps.store.readNow,
  );
  if (found === null) throw notTracked(ref.name);
  return 'json' in found ? found : present(found, deps);
}

/** Several accounts by name; `missing` lists the names (first spelling of each) not tracked. */
export async function getAccounts(
  deps: ServiceDeps,
  names: readonly string[],
  platform: Platform | undefined,
): Promise<{ data: Account[]; missing: string[] }> {
  // `jack`, `@JACK` and `x.com/jack` are one account: keep the first spelling of each.
  const byIdentity = new Map<string, NamedRef>();
  for (const name of names) {
    const ref = accountRef(name, platform, deps.config.defaultPlatform);
    if (!byIdentity.has(`${ref.platform}:${ref.key}`)) byIdentity.set(`${ref.platform}:${ref.key}`, ref);
  }
  const refs = [...byIdentity.values()];
  const found = await findAccounts(deps.store.reader, refs);
  const data = refs.flatMap((ref) => found.get(`${ref.platform}:${ref.key}`) ?? []).map((a) => present(a, deps));
  const missing = refs.filter((ref) => !found.has(`${ref.platform}:${ref.key}`)).map((ref) => ref.name);
  return { data, missing };
}

/** The filters of the account list and its count, as the API and the dashboard take them. */
export interface AccountFilters {
  status?: AccountStatus | undefined;
  platform?: Platform | undefined;
  tag?: string | undefined;
  /** Username prefix as typed (a leading @ is ignored). */
  q?: string | undefined;
}

const storageFilter = (filters: AccountFilters): AccountFilter => ({
  status: filters.status,
  platform: filters.platform,
  tag: filters.tag,
  prefix: filters.q?.replace(/^@/, '').toLowerCase(),
});

/**
 * A page of accounts, stable while accounts are added; `last` is where the next page starts
 * (`after`: [sort value, row id]). Only the last page holds fewer than `limit`.
 */
export async function listAccountPage(
  deps: ServiceDeps,
  filters: AccountFilters,
  page: { sort: AccountSort; limit: number; after?: readonly [string | number, number] | undefined },
): Promise<{ data: Account[]; last: readonly [string | number, number] | null; more: boolean }> {
  const found = await listAccounts(deps.store.reader, deps.store.caps, storageFilter(filters), page);
  return { data: found.accounts.map((a) => present(a, deps)), last: found.last, more: found.more };
}

/** How many tracked accounts match, exactly. */
export function countMatchingAccounts(deps: ServiceDeps, filters: AccountFilters): Promise<number> {
  return countAccounts(deps.store.reader, deps.store.caps, storageFilter(filters));
}
