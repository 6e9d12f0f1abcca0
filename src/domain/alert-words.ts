// An alert rule's condition and scope in words, for the dashboard and the command line.
import type { AlertCondition } from './alert-rules.ts';

/** null: a stored condition perch cannot read. */
export function describeCondition(condition: AlertCondition | null): string {
  if (condition === null) return '(a condition that cannot be read)';
  if ('above' in condition) return `above ${condition.above}`;
  if ('below' in condition) return `below ${condition.below}`;
  if ('changePercent' in condition) return `changes ${condition.changePercent} % in ${condition.windowHours} h`;
  if ('anomaly' in condition) return `anomaly, sensitivity ${condition.anomaly.sensitivity}`;
  return `no post for ${condition.quietDays} days`;
}

/** `accounts` as their public ids (acc_12). */
export function describeScope(scope: {
  tags?: readonly string[];
  platform?: string;
  accounts?: readonly string[];
}): string {
  const parts = [
    scope.platform ? `on ${scope.platform}` : null,
    scope.tags ? `tagged ${scope.tags.join(' or ')}` : null,
    scope.accounts ? `accounts ${scope.accounts.join(', ')}` : null,
  ].filter((p) => p !== null);
  return parts.length > 0 ? parts.join(', ') : 'every account';
}
