// Options more than one command takes: comma-separated values, and the options that name which
// accounts an alert rule or a digest is about (--tags, --platform, --accounts), read into the
// scope the services check as they check the API's.
import type { Command } from 'commander';

/** A comma-separated value: each part trimmed, empty parts dropped. */
export const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

export interface ScopeOptions {
  tags?: string[];
  platform?: string;
  accounts?: string[];
}

/** Adds --tags, --platform and --accounts to `command` (in that order, for its help). */
export function addScopeOptions(command: Command): Command {
  return command
    .option('--tags <tags>', 'only accounts with one of these tags (separated by commas)', commaList)
    .option('--platform <platform>', 'only accounts on x or bluesky')
    .option('--accounts <ids>', 'only these accounts (acc_… ids, separated by commas)', commaList);
}

/** The scope the options name: only those given (none: every account). */
export function scopeOf(options: ScopeOptions): Record<string, unknown> {
  const scope: Record<string, unknown> = {};
  if (options.tags) scope.tags = options.tags;
  if (options.platform) scope.platform = options.platform;
  if (options.accounts) scope.accounts = options.accounts;
  return scope;
}
