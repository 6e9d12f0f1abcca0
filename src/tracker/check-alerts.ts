// Alert rules after a check, in its transaction (DESIGN §12): the rules whose scope index names
// the batch's platform, accounts or tags are weighed against each account just read, and a rule
// that holds writes `alert.triggered` once per account per cooldown. A rule that cannot be read
// or weighed is logged and skipped; if the store refuses a step, the step is undone (a savepoint)
// and the check is written without alerts. Either way the check itself goes on.
import { evaluateCondition, historyNeeded, type AlertFinding, type AlertSubject } from '../domain/alert-conditions.ts';
import { scopeMatches, type AlertMetric, type AlertRuleDefinition } from '../domain/alert-rules.ts';
import type { NewEvent } from '../domain/events.ts';
import { accountPublicId } from '../domain/ids.ts';
import { firingKey, lastFirings, recordFirings, type AlertFiring } from '../storage/alert-firings-repo.ts';
import { rulesForBatch } from '../storage/alert-rules-repo.ts';
import { snapshotsSince } from '../storage/history-repo.ts';
import type { ClaimedAccount } from '../storage/leases-repo.ts';
import { lastPostTimes } from '../storage/posts-repo.ts';
import { withSavepoint } from '../storage/savepoint.ts';
import type { Executor } from '../storage/store.ts';
import type { CheckWrite } from '../storage/tracking-repo.ts';
import { queueAlertMail } from './alert-mail.ts';
import type { TrackerContext } from './context.ts';

type AlertContext = Pick<TrackerContext, 'store' | 'logger' | 'settings'>;
type Rule = { id: string; name: string; definition: AlertRuleDefinition };

interface Read {
  write: CheckWrite;
  before: ClaimedAccount;
  tags: string[];
  subject: AlertSubject;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};

/** What the check read of an account, for its rules; null when the check read nothing. */
function subjectOf(write: CheckWrite): AlertSubject | null {
  if (write.metrics === undefined) return null;
  const metrics = obj(write.metrics);
  const analysis = obj(write.analysis);
  const lastPost = obj(analysis.activity).lastPostAt;
  return {
    values: {
      followers: num(metrics.followers),
      following: num(metrics.following),
      posts: num(metrics.posts),
      engagementRate: num(obj(analysis.engagement).engagementRate),
    },
    lastPostAt: typeof lastPost === 'string' ? Date.parse(lastPost) || null : null,
    history: write.followerSeries ? { followers: write.followerSeries } : {},
  };
}

/** The alert events of a written batch (already-fired pairs within their cooldown left out). */
export async function decideAlertEvents(
  trx: Executor,
  ctx: AlertContext,
  accounts: readonly ClaimedAccount[],
  written: readonly CheckWrite[],
  now: number,
): Promise<NewEvent[]> {
  try {
    return await withSavepoint(trx, () => alertEvents(trx, ctx, accounts, written, now));
  } catch (error) {
    if (ctx.store.caps.isUnavailable(error)) throw error;
    ctx.logger.warn({ err: error }, 'alert rules were skipped for this batch: the store refused a step');
    return [];
  }
}

async function alertEvents(
  trx: Executor,
  ctx: AlertContext,
  accounts: readonly ClaimedAccount[],
  written: readonly CheckWrite[],
  now: number,
): Promise<NewEvent[]> {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const reads: Read[] = [];
  for (const write of written) {
    const before = byId.get(write.id);
    const subject = subjectOf(write);
    if (before && subject) reads.push({ write, before, tags: [], subject });
  }
  const platform = accounts[0]?.platform;
  if (platform === undefined || reads.length === 0) return [];
  const found = await rulesForBatch(
    trx,
    platform,
    reads.map((r) => r.write.id),
  );
  if (found.rules.length === 0) return [];
  const rules: Rule[] = [];
  for (const rule of found.rules) {
    if (rule.ok) rules.push(rule);
    else ctx.logger.warn({ err: rule.error, rule: rule.id }, 'alert rule skipped: it cannot be read');
  }
  for (const read of reads) read.tags = found.tags.get(read.write.id) ?? [];

  const pairs: { rule: Rule; read: Read }[] = [];
  for (const rule of rules) {
    try {
      for (const read of reads)
        if (scopeMatches(rule.definition.scope, { id: read.write.id, platform, tags: read.tags }))
          pairs.push({ rule, read });
      historyNeeded(rule.definition.condition, 0);
    } catch (error) {
      ctx.logger.warn({ err: error, rule: rule.id }, 'alert rule skipped: its scope or condition cannot be read');
      while (pairs.at(-1)?.rule === rule) pairs.pop();
    }
  }
  await readHistory(trx, pairs, now, ctx.settings.intervalMs);

  const findings: { rule: Rule; read: Read; finding: AlertFinding }[] = [];
  for (const { rule, read } of pairs) {
    try {
      const finding = evaluateCondition(rule.definition.metric, rule.definition.condition, read.subject, now);
      if (finding) findings.push({ rule, read, finding });
    } catch (error) {
      ctx.logger.warn({ err: error, rule: rule.id, account: read.write.id }, 'alert rule skipped: it failed');
    }
  }
  if (findings.length === 0) return [];
  const last = await lastFirings(
    trx,
    findings.map((f) => f.rule.id),
    findings.map((f) => f.read.write.id),
  );
  const due = findings.filter((f) => {
    const at = last.get(firingKey(f.rule.id, f.read.write.id));
    return at === undefined || now - at >= f.rule.definition.cooldownMs;
  });
  if (due.length === 0) return [];
  const firings: AlertFiring[] = due.map((f) => ({
    ruleId: f.rule.id,
    accountId: f.read.write.id,
    firedAt: now,
    data: { ...f.finding, condition: f.rule.definition.condition },
  }));
  await recordFirings(trx, ctx.store.caps, firings);
  const events = due.map(({ rule, read, finding }): NewEvent => {
    const { write, before } = read;
    return {
      type: 'alert.triggered',
      accountId: write.id,
      account: {
        id: accountPublicId(write.id),
        platform: before.platform,
        username: write.username ?? before.username,
        platformUserId: write.platformUserId ?? before.platformUserId,
      },
      data: { rule: { id: rule.id, name: rule.definition.name }, ...finding, condition: rule.definition.condition },
    };
  });
  await queueAlertMail(
    trx,
    due.flatMap((f, i) => {
      const event = events[i];
      const { recipients } = f.rule.definition;
      return recipients.length > 0 && event ? [{ ruleId: f.rule.id, recipients, event }] : [];
    }),
    now,
  );
  return events;
}

/** Reads the history the pairs' conditions ask for (followers' anomaly has it in the daily series). */
async function readHistory(
  trx: Executor,
  pairs: readonly { rule: Rule; read: Read }[],
  now: number,
  intervalMs: number,
): Promise<void> {
  // One span per account: from the earliest any of its conditions reads to the latest.
  const spans = new Map<number, { from: number; to: number }>();
  const quiet = new Set<number>();
  for (const { rule, read } of pairs) {
    const { metric, condition } = rule.definition;
    if ('quietDays' in condition && read.subject.lastPostAt === null) quiet.add(read.write.id);
    if (metric === 'followers' && 'anomaly' in condition) continue;
    const span = historyNeeded(condition, intervalMs);
    if (span === null) continue;
    const known = spans.get(read.write.id);
    spans.set(read.write.id, {
      from: Math.min(known?.from ?? Infinity, now - span.fromMs),
      to: Math.max(known?.to ?? -Infinity, now - span.toMs),
    });
  }
  const reads = new Map(pairs.map((p) => [p.read.write.id, p.read]));
  if (quiet.size > 0) {
    const times = await lastPostTimes(trx, [...quiet]);
    for (const [id, at] of times) {
      const read = reads.get(id);
      if (read) read.subject.lastPostAt = at;
    }
  }
  if (spans.size === 0) return;
  // Accounts of one batch mostly ask for the same spans: one query per distinct span.
  const bySpan = new Map<string, number[]>();
  for (const [id, span] of spans) {
    const key = `${span.from}:${span.to}`;
    bySpan.set(key, [...(bySpan.get(key) ?? []), id]);
  }
  for (const [key, ids] of bySpan) {
    const [from, to] = key.split(':').map(Number) as [number, number];
    const snapshots = await snapshotsSince(trx, ids, from, to);
    for (const [id, list] of snapshots) {
      const read = reads.get(id);
      if (!read) continue;
      const points = (metric: AlertMetric & ('followers' | 'following' | 'posts')) =>
        list.map((s) => [s.observedAt, s[metric]] as [number, number]);
      const history = read.subject.history;
      read.subject.history = { ...history, following: points('following'), posts: points('posts') };
      // The followers' daily series stays for the anomaly; a window needs the finer snapshots.
      read.subject.history.followers = [...(history.followers ?? []), ...points('followers')];
    }
  }
}
