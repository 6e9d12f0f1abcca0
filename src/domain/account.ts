// A tracked account as the rest of perch sees it, and the states it can be in.
import type { AccountAnalysis } from './analysis.ts';
import type { Platform } from './platforms.ts';

export const ACCOUNT_STATUSES = [
  'pending',
  'active',
  'protected',
  'not_found',
  'suspended',
  'paused',
  'error',
] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface AccountProfile {
  displayName: string | null;
  description: string | null;
  location: string | null;
  url: string | null;
  profileImageUrl: string | null;
  verified: boolean | null;
  protected: boolean | null;
  createdAt: string | null;
}

export interface AccountMetrics {
  followers: number;
  following: number;
  posts: number;
  listed: number | null;
  observedAt: string;
}

/** One point of an account's history: its metrics as observed, filling one history bucket. */
export interface MetricSnapshot {
  /** The tracked account's row id. */
  accountId: number;
  /** Start of the history bucket (epoch ms): a later check in the same bucket replaces the point. */
  bucket: number;
  observedAt: number;
  followers: number;
  following: number;
  posts: number;
  listed: number | null;
}

export interface Rename {
  from: string;
  to: string;
  at: string;
}

/** An account by name: its platform and its name's key (the case-folded identity, usernames.ts). */
export interface AccountRef {
  platform: Platform;
  key: string;
}

export interface Account {
  id: string;
  platform: Platform;
  username: string;
  platformUserId: string | null;
  status: AccountStatus;
  statusReason: string | null;
  tags: string[];
  note: string | null;
  profile: AccountProfile | null;
  metrics: AccountMetrics | null;
  /** Computed by the tracker (growth, activity, engagement, content); null until the first check. */
  analysis: AccountAnalysis | null;
  tracking: {
    trackedSince: string;
    lastCheckedAt: string | null;
    nextCheckAt: string | null;
    consecutiveFailures: number;
    lastError: string | null;
  };
  renames: Rename[];
}

/** Account sort orders offered by the list endpoint. */
export const ACCOUNT_SORTS = ['username', '-followers', '-followersChange7d', '-lastCheckedAt'] as const;
export type AccountSort = (typeof ACCOUNT_SORTS)[number];

/** Tags are short labels; one rule wherever they enter (CSV or PATCH). */
export const TAG_PATTERN = /^[\p{L}\p{N}_.:\- ]{1,64}$/u;
export const MAX_TAGS = 50;
export const MAX_NOTE_LENGTH = 1_000;
