// Follower lists as use cases (DESIGN §11): switching one on or off (priced first on X, refused
// above FOLLOWER_LIST_MAX), what an account's list is and costs, and pages of who follows, who
// followed and who left.
import type { Config } from '../config.ts';
import type { Account } from '../domain/account.ts';
import { PerchError } from '../domain/errors.ts';
import { followerPassCost, type FollowerPassCost } from '../domain/followers.ts';
import { FREE } from '../domain/spend.ts';
import { findAccount, findAccountRowId } from '../storage/accounts-repo.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import {
  followerListOf,
  listFollowers,
  setFollowerListSetting,
  type FollowerQuery,
  type FollowerRow,
} from '../storage/followers-list.ts';
import { notTracked, type NamedRef } from './account-refs.ts';
import type { ServiceDeps } from './context.ts';

export type { FollowerRow, FollowerState } from '../storage/followers-list.ts';

export interface FollowerDeps extends ServiceDeps {
  config: ServiceDeps['config'] &
    Pick<Config, 'followerListMax' | 'followerListTags' | 'followerListIntervalMs' | 'xRateCard'>;
}

/** Follower pages of X hold 1,000 users, Bluesky's 100 (platforms/*-followers.ts). */
const PAGE_SIZE = { x: 1_000, bluesky: 100 } as const;

/** An account's follower list as the API and the dashboard show it. */
export interface FollowerListState {
  enabled: boolean;
  /** How it is decided: `account` (switched by an admin), `platform` (Bluesky), `tag`, or `off`. */
  by: 'account' | 'platform' | 'tag' | 'off';
  /** Whether the account is above FOLLOWER_LIST_MAX (then it is never kept). */
  overLimit: boolean;
  limit: number;
  lastPassAt: string | null;
  nextPassAt: string | null;
  /** Followers found by the last finished pass. */
  listed: number | null;
  /** What one full pass costs at the account's current followers (X bills each user returned). */
  passCost: FollowerPassCost;
}

function stateOf(
  deps: FollowerDeps,
  account: Account,
  list: NonNullable<Awaited<ReturnType<typeof followerListOf>>>,
): FollowerListState {
  const { followerListMax, followerListTags, xRateCard, followerListIntervalMs } = deps.config;
  const followers = account.metrics?.followers ?? list.followers ?? 0;
  const overLimit = followers > followerListMax;
  const tagged = account.tags.some((tag) => followerListTags.includes(tag));
  const by =
    list.setting !== null
      ? list.setting
        ? 'account'
        : 'off'
      : account.platform === 'bluesky'
        ? 'platform'
        : tagged
          ? 'tag'
          : 'off';
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    enabled: by !== 'off' && !overLimit,
    by,
    overLimit,
    limit: followerListMax,
    lastPassAt: iso(list.lastPassAt),
    nextPassAt: list.lastPassAt === null && !list.running ? null : iso(list.nextPassAt),
    listed: list.listed,
    passCost: followerPassCost(
      followers,
      PAGE_SIZE[account.platform],
      account.platform === 'x' ? xRateCard : FREE,
      followerListIntervalMs,
    ),
  };
}

async function load(deps: FollowerDeps, ref: NamedRef) {
  const [account, rowId] = await Promise.all([findAccount(deps.store.db, ref), findAccountRowId(deps.store.db, ref)]);
  const list = rowId === null ? null : await followerListOf(deps.store.db, rowId);
  if (!account || rowId === null || !list) throw notTracked(ref.name);
  return { account, rowId, list };
}

/** The account's follower list: on or not, why, and what a pass costs. */
export async function followerList(deps: FollowerDeps, ref: NamedRef): Promise<FollowerListState> {
  const { account, list } = await load(deps, ref);
  return stateOf(deps, account, list);
}

/** Switches the list on or off for this account; refused above FOLLOWER_LIST_MAX (nothing changes then). */
export async function switchFollowerList(
  deps: FollowerDeps,
  ref: NamedRef,
  on: boolean,
  actor: string,
): Promise<FollowerListState> {
  const now = deps.clock.now();
  const { account, rowId, list } = await load(deps, ref);
  const followers = account.metrics?.followers ?? 0;
  if (on && followers > deps.config.followerListMax)
    throw new PerchError(
      'follower_list_too_large',
      `${account.username.slice(0, 100)} has ${followers.toLocaleString('en')} followers, above the follower-list limit of ${deps.config.followerListMax.toLocaleString('en')} (FOLLOWER_LIST_MAX); its follower list is not kept.`,
    );
  await deps.store.db.transaction().execute(async (trx) => {
    await setFollowerListSetting(trx, rowId, on, now);
    await writeAudit(trx, {
      actor,
      action: 'account.update',
      target: account.id,
      detail: { followerList: on },
      at: now,
    });
  });
  return stateOf(deps, account, { ...list, setting: on });
}

export interface FollowerPage {
  platform: Account['platform'];
  username: string;
  rows: FollowerRow[];
  more: boolean;
}

/** A page of the account's followers: current ones, or those gained or lost since a time. */
export async function followerPage(deps: FollowerDeps, ref: NamedRef, query: FollowerQuery): Promise<FollowerPage> {
  const rowId = await findAccountRowId(deps.store.reader, ref);
  if (rowId === null) throw notTracked(ref.name);
  const account = await findAccount(deps.store.reader, ref);
  if (!account) throw notTracked(ref.name);
  const page = await listFollowers(deps.store.reader, rowId, query);
  return { platform: account.platform, username: account.username, ...page };
}
