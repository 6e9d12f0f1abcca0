// Alert rules after a check, in its transaction (DESIGN §12): the tracker's rule book (the enabled
// rules, read again only when they changed) gives each account just read the questions the rules
// in its scope ask (by its platform and its tags as claimed), each question is decided once, and a
// rule whose question holds writes `alert.triggered` once per account per cooldown. A rule that cannot be read
// or weighed is logged and skipped; if the store refuses a step, the step is undone (a savepoint)
// and the check is written without alerts. Either way the check itself goes on.
import type { AlertFinding, AlertSubject } from '../domain/alert-conditions.ts';
import type { NewEvent } from '../domain/events.ts';
import { accountPublicId } from '../domain/ids.ts';
import { firingKey, lastFirings, recordFirings, type AlertFiring } from '../storage/alert-firings-repo.ts';
import type { ClaimedAccount } from '../storage/leases-repo.ts';
import { withSavepoint } from '../storage/savepoint.ts';
import type { Executor } from '../storage/store.ts';
import type { CheckWrite } from '../storage/tracking-repo.ts';
import { accountAlertState, decide, readAlertHistory, type AccountAlertState } from './alert-history.ts';
import { queueAlertMail } from './alert-mail.ts';
import type { BookRule } from './alert-rulebook.ts';
import type { TrackerContext } from './context.ts';

type AlertContext = Pick<TrackerContext, 'store' | 'logger' | 'settings' | 'alertRules'>;

interface Read {
  write: CheckWrite;
  before: ClaimedAccount;
  state: AccountAlertState;
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
  const book = await ctx.alertRules.current(trx);
  if (book.rules.length === 0) return [];
  const byId = new Map(accounts.map((a) => [a.id, a]));
  // Each account's rules as its plan: the questions they ask (each once), with the tags as claimed.
  const reads: Read[] = [];
  for (const write of written) {
    const before = byId.get(write.id);
    const subject = before ? subjectOf(write) : null;
    if (!before || !subject) continue;
    const plan = book.planFor({ id: write.id, platform: before.platform, tags: before.tags });
    if (plan.rules > 0) reads.push({ write, before, state: accountAlertState(write.id, subject, plan) });
  }
  if (reads.length === 0) return [];
  await readAlertHistory(
    trx,
    reads.map((r) => r.state),
    now,
    ctx.settings,
  );

  const findings: { rule: BookRule; read: Read; finding: AlertFinding }[] = [];
  for (const read of reads)
    for (const asked of read.state.plan.questions) {
      const decision = decide(read.state, asked, now);
      if (decision.ok && decision.finding === null) continue;
      for (const rule of asked.rules)
        if (!decision.ok)
          ctx.logger.warn(
            { err: decision.error, rule: rule.id, account: read.write.id },
            'alert rule skipped: it failed',
          );
        else if (decision.finding) findings.push({ rule, read, finding: decision.finding });
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
