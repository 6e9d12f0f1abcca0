// Alert rules (DESIGN §12): what a person asked to hear about, checked field by field into a
// definition (and, as stored, read back only in the shapes perch writes), and the scope keys that
// let a check find only the rules that can match its accounts.
import { TAG_PATTERN } from './account.ts';
import type { FieldProblem } from './errors.ts';
import { isPlatform, PLATFORMS, type Platform } from './platforms.ts';
import { parseDuration } from './units.ts';

export const ALERT_METRICS = ['followers', 'following', 'posts', 'engagementRate'] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];
export const isAlertMetric = (v: unknown): v is AlertMetric => (ALERT_METRICS as readonly unknown[]).includes(v);

export type AlertCondition =
  | { above: number }
  | { below: number }
  | { changePercent: number; windowHours: number }
  | { anomaly: { sensitivity: number } }
  | { quietDays: number };

/** Which accounts a rule watches: every given dimension must match (none given: every account). */
export interface AlertScope {
  tags?: string[];
  platform?: Platform;
  /** Account row ids (`acc_12` in the API). */
  accounts?: number[];
}

export interface AlertRuleDefinition {
  name: string;
  scope: AlertScope;
  metric: AlertMetric;
  condition: AlertCondition;
  cooldownMs: number;
  recipients: string[];
  enabled: boolean;
}

export const DEFAULT_COOLDOWN_MS = 86_400_000;
const MAX_COOLDOWN_MS = 365 * 86_400_000;
const MAX_WINDOW_HOURS = 30 * 24;
const MAX_QUIET_DAYS = 365;
const MAX_SCOPE_ITEMS = 500;
const MAX_RECIPIENTS = 20;
// Deliberately plain: one @, no spaces or mail-header punctuation, a dot in the domain.
const EMAIL = /^[^\s@<>()[\],;:"\\]{1,64}@[^\s@<>()[\],;:"\\.]+(\.[^\s@<>()[\],;:"\\.]+)+$/;
const ACCOUNT_ID = /^acc_([1-9]\d{0,15})$/;

type Input = Record<string, unknown>;
type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };

const isObject = (v: unknown): v is Input => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `acc_12` → 12, or null. */
export function accountRowId(publicId: string): number | null {
  const match = ACCOUNT_ID.exec(publicId);
  return match?.[1] === undefined ? null : Number(match[1]);
}

export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && EMAIL.test(text);
}

/**
 * Checks a rule as given (API body, form, command line) into a definition, naming each bad field
 * (`body/condition/windowHours`). `base` is the stored rule a change applies to: fields the input
 * leaves out keep their value there.
 */
export function checkAlertRule(input: unknown, base?: AlertRuleDefinition): Checked<AlertRuleDefinition> {
  const errors: FieldProblem[] = [];
  const fail = (field: string, message: string) => errors.push({ field: `body/${field}`, message });
  if (!isObject(input)) return { ok: false, errors: [{ field: 'body', message: 'must be an object' }] };
  const has = (key: string) => input[key] !== undefined;
  for (const key of Object.keys(input))
    if (!['name', 'scope', 'metric', 'condition', 'cooldown', 'recipients', 'enabled'].includes(key))
      fail(key, 'is not a field of an alert rule');

  let name = base?.name;
  if (has('name') || !base) {
    const raw = input.name;
    if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 200) fail('name', 'must be 1 to 200 characters');
    else name = raw.trim();
  }
  let scope = base?.scope ?? {};
  if (has('scope')) scope = checkScope(input.scope, fail);
  let metric = base?.metric;
  if (has('metric') || !base) {
    const raw = input.metric;
    if (!isAlertMetric(raw)) fail('metric', `must be one of ${ALERT_METRICS.join(', ')}`);
    else metric = raw;
  }
  let condition = base?.condition;
  if (has('condition') || !base) condition = checkCondition(input.condition, fail) ?? undefined;
  let cooldownMs = base?.cooldownMs ?? DEFAULT_COOLDOWN_MS;
  if (has('cooldown')) {
    const raw = input.cooldown;
    const ms = typeof raw === 'string' ? parseDuration(raw) : null;
    if (ms === null || ms < 60_000 || ms > MAX_COOLDOWN_MS)
      fail('cooldown', 'must be a duration from 1m to 365d, such as "30m", "24h" or "7d"');
    else cooldownMs = ms;
  }
  let recipients = base?.recipients ?? [];
  if (has('recipients')) {
    const raw = input.recipients;
    if (!Array.isArray(raw) || raw.length > MAX_RECIPIENTS)
      fail('recipients', `must be a list of at most ${MAX_RECIPIENTS} e-mail addresses`);
    else {
      raw.forEach((address, i) => {
        if (typeof address !== 'string' || !isEmailAddress(address.trim()))
          fail(`recipients/${i}`, 'is not an e-mail address');
      });
      recipients = [...new Set(raw.map((a) => String(a).trim()))];
    }
  }
  let enabled = base?.enabled ?? true;
  if (has('enabled')) {
    if (typeof input.enabled !== 'boolean') fail('enabled', 'must be true or false');
    else enabled = input.enabled;
  }
  if (metric === 'engagementRate' && condition && !('above' in condition) && !('below' in condition))
    fail('condition', 'engagementRate has no history to compare with: use above or below');
  if (metric !== undefined && metric !== 'posts' && condition && 'quietDays' in condition)
    fail('metric', 'quietDays watches posts: use the metric posts');
  if (errors.length > 0 || name === undefined || metric === undefined || condition === undefined)
    return { ok: false, errors: errors.length > 0 ? errors : [{ field: 'body', message: 'is incomplete' }] };
  return { ok: true, value: { name, scope, metric, condition, cooldownMs, recipients, enabled } };
}

export function checkScope(raw: unknown, fail: (field: string, message: string) => void): AlertScope {
  const scope: AlertScope = {};
  if (!isObject(raw)) {
    fail('scope', 'must be an object with tags, platform or accounts');
    return scope;
  }
  for (const key of Object.keys(raw))
    if (!['tags', 'platform', 'accounts'].includes(key)) fail(`scope/${key}`, 'is not a scope field');
  if (raw.tags !== undefined) {
    if (!Array.isArray(raw.tags) || raw.tags.length > MAX_SCOPE_ITEMS)
      fail('scope/tags', `must be a list of at most ${MAX_SCOPE_ITEMS} tags`);
    else {
      raw.tags.forEach((tag, i) => {
        if (typeof tag !== 'string' || !TAG_PATTERN.test(tag)) fail(`scope/tags/${i}`, 'is not a tag');
      });
      if (raw.tags.length > 0) scope.tags = [...new Set(raw.tags.map(String))];
    }
  }
  if (raw.platform !== undefined) {
    if (!isPlatform(raw.platform)) fail('scope/platform', `must be one of ${PLATFORMS.join(', ')}`);
    else scope.platform = raw.platform;
  }
  if (raw.accounts !== undefined) {
    if (!Array.isArray(raw.accounts) || raw.accounts.length > MAX_SCOPE_ITEMS)
      fail('scope/accounts', `must be a list of at most ${MAX_SCOPE_ITEMS} account ids`);
    else {
      const ids: number[] = [];
      raw.accounts.forEach((id, i) => {
        const row = typeof id === 'string' ? accountRowId(id) : null;
        if (row === null) fail(`scope/accounts/${i}`, 'is not an account id such as acc_12');
        else ids.push(row);
      });
      if (ids.length > 0) scope.accounts = [...new Set(ids)];
    }
  }
  return scope;
}

function checkCondition(raw: unknown, fail: (field: string, message: string) => void): AlertCondition | null {
  const shapes =
    'one of {"above": n}, {"below": n}, {"changePercent": p, "windowHours": h}, {"anomaly": {"sensitivity": 1-5}}, {"quietDays": d}';
  if (!isObject(raw)) {
    fail('condition', `must be ${shapes}`);
    return null;
  }
  const keys = Object.keys(raw);
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (keys.length === 1 && (keys[0] === 'above' || keys[0] === 'below')) {
    const n = raw[keys[0]];
    if (!finite(n)) {
      fail(`condition/${keys[0]}`, 'must be a number');
      return null;
    }
    return keys[0] === 'above' ? { above: n } : { below: n };
  }
  if (keys.length === 2 && 'changePercent' in raw && 'windowHours' in raw) {
    const p = raw.changePercent;
    const h = raw.windowHours;
    const goodP = finite(p) && p !== 0 && Math.abs(p) <= 100_000;
    const goodH = finite(h) && h > 0 && h <= MAX_WINDOW_HOURS;
    if (!goodP) fail('condition/changePercent', 'must be a non-zero percentage (negative for a fall)');
    if (!goodH) fail('condition/windowHours', `must be more than 0 and at most ${MAX_WINDOW_HOURS} hours`);
    return goodP && goodH ? { changePercent: p, windowHours: h } : null;
  }
  if (keys.length === 1 && keys[0] === 'anomaly') {
    const a = raw.anomaly;
    const s = isObject(a) ? a.sensitivity : undefined;
    const extra = isObject(a) && Object.keys(a).some((k) => k !== 'sensitivity');
    if (extra || !Number.isInteger(s) || Number(s) < 1 || Number(s) > 5) {
      fail('condition/anomaly/sensitivity', 'must be a whole number from 1 (rarely) to 5 (early)');
      return null;
    }
    return { anomaly: { sensitivity: Number(s) } };
  }
  if (keys.length === 1 && keys[0] === 'quietDays') {
    const d = raw.quietDays;
    if (!finite(d) || d <= 0 || d > MAX_QUIET_DAYS) {
      fail('condition/quietDays', `must be more than 0 and at most ${MAX_QUIET_DAYS} days`);
      return null;
    }
    return { quietDays: d };
  }
  fail('condition', `must be ${shapes}`);
  return null;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A stored scope as perch writes it (account row ids), or null when it is not (a hand-edited store). */
export function storedScope(raw: unknown): AlertScope | null {
  if (!isObject(raw)) return null;
  const { tags, platform, accounts } = raw;
  const ok =
    Object.keys(raw).every((k) => k === 'tags' || k === 'platform' || k === 'accounts') &&
    (tags === undefined || strings(tags)) &&
    (platform === undefined || (typeof platform === 'string' && isPlatform(platform))) &&
    (accounts === undefined || (Array.isArray(accounts) && accounts.every((x) => Number.isSafeInteger(x))));
  return ok ? (raw as AlertScope) : null;
}

/** A stored condition as perch writes it, or null when it is not. */
export function storedCondition(raw: unknown): AlertCondition | null {
  let ok = true;
  const condition = checkCondition(raw, () => (ok = false));
  return ok ? condition : null;
}

/** A stored recipient list, or null when it is not one. */
export function storedRecipients(raw: unknown): string[] | null {
  return strings(raw) ? raw : null;
}

/** One key of the scope index: a tracker looks rules up by its accounts' ids, tags and platform. */
export interface ScopeKey {
  kind: 'all' | 'platform' | 'tag' | 'account';
  value: string;
}

/**
 * The index keys of a scope: only its narrowest dimension is indexed (accounts, else tags, else
 * platform), since every dimension must match; the rest is checked by `scopeMatches`.
 */
export function scopeKeys(scope: AlertScope): ScopeKey[] {
  if (scope.accounts) return scope.accounts.map((id) => ({ kind: 'account', value: String(id) }));
  if (scope.tags) return scope.tags.map((tag) => ({ kind: 'tag', value: tag }));
  if (scope.platform) return [{ kind: 'platform', value: scope.platform }];
  return [{ kind: 'all', value: '' }];
}

export function scopeMatches(
  scope: AlertScope,
  account: { id: number; platform: string; tags: readonly string[] },
): boolean {
  if (scope.platform !== undefined && scope.platform !== account.platform) return false;
  if (scope.accounts !== undefined && !scope.accounts.includes(account.id)) return false;
  if (scope.tags !== undefined && !scope.tags.some((t) => account.tags.includes(t))) return false;
  return true;
}
