// The enabled alert rules as a tracker keeps them between batches (DESIGN §12). They are read again
// only when the store's rules version moved (the store bumps it at any change to a rule, from any
// process), so a batch reads one number instead of the rules. Each rule is indexed by its scope's
// narrowest dimension (accounts, else tags, else platform, else every account), so an account's
// rules are found through a few map lookups, not by weighing every rule; and numbered by the
// question it asks (metric and condition), so rules asking the same share one decision. What an
// account's rules ask is kept per platform and tag list, so most accounts find it in one lookup.
import type { Logger } from 'pino';
import {
  scopeKeys,
  scopeMatches,
  type AlertCondition,
  type AlertMetric,
  type AlertRuleDefinition,
} from '../domain/alert-rules.ts';
import { alertRulesVersion, enabledAlertRules, type FoundRule } from '../storage/alert-rules-repo.ts';
import type { Executor } from '../storage/store.ts';

export interface BookRule {
  id: string;
  definition: AlertRuleDefinition;
  /** The number of its (metric, condition) among the book's questions. */
  question: number;
  /** Its place in the book. */
  index: number;
  /** Whether its scope has dimensions besides the indexed one (they are checked per account). */
  narrowed: boolean;
}

export interface AccountInScope {
  id: number;
  platform: string;
  tags: readonly string[];
}

/** One question the rules in an account's scope ask (a metric and a condition), and those rules. */
export interface AskedQuestion {
  metric: AlertMetric;
  condition: AlertCondition;
  rules: readonly BookRule[];
}

/** What an account's rules ask of it: each question once, with the rules asking it. */
export interface ScopePlan {
  questions: readonly AskedQuestion[];
  rules: number;
}

/** Plans kept per (platform, tags); far more distinct tag lists than this are read again. */
const MAX_PLANS = 4_096;

export class RuleSet {
  /** Whether any rule's scope names tags. */
  readonly byTags: boolean;
  /** The last account each rule was found for (a rule indexed under two of its tags is found once). */
  private readonly seenAt: Uint32Array;
  private lookups = 0;
  /** The accounts some rule names: only their plans depend on more than platform and tags. */
  private readonly named: ReadonlySet<number>;
  private readonly plans = new Map<string, ScopePlan>();

  constructor(
    readonly rules: readonly BookRule[],
    private readonly index: ReadonlyMap<string, readonly BookRule[]>,
  ) {
    this.byTags = rules.some((r) => r.definition.scope.tags !== undefined);
    this.seenAt = new Uint32Array(rules.length);
    this.named = new Set(rules.flatMap((r) => r.definition.scope.accounts ?? []));
  }

  /**
   * The questions the account's rules ask. Accounts of one platform and tag list share one plan
   * (kept), unless a rule names the account.
   */
  planFor(account: AccountInScope): ScopePlan {
    if (this.named.has(account.id)) return planOf(this.inScope(account));
    const key = this.byTags ? `${account.platform}\u0000${account.tags.join('\u0000')}` : account.platform;
    let plan = this.plans.get(key);
    if (plan === undefined) {
      if (this.plans.size >= MAX_PLANS) this.plans.clear();
      plan = planOf(this.inScope(account));
      this.plans.set(key, plan);
    }
    return plan;
  }

  /** The rules whose scope holds the account, each once. */
  inScope(account: AccountInScope): BookRule[] {
    const found: BookRule[] = [];
    const mark = (this.lookups = (this.lookups % 0xffff_fffe) + 1);
    this.collect(this.index.get('all:'), account, found, mark);
    this.collect(this.index.get(`platform:${account.platform}`), account, found, mark);
    this.collect(this.index.get(`account:${account.id}`), account, found, mark);
    for (const tag of account.tags) this.collect(this.index.get(`tag:${tag}`), account, found, mark);
    return found;
  }

  private collect(list: readonly BookRule[] | undefined, account: AccountInScope, found: BookRule[], mark: number) {
    if (list === undefined) return;
    for (const rule of list) {
      if (this.seenAt[rule.index] === mark) continue;
      this.seenAt[rule.index] = mark;
      if (!rule.narrowed || scopeMatches(rule.definition.scope, account)) found.push(rule);
    }
  }
}

/** The rules grouped by the question they ask, in the book's order. */
function planOf(rules: readonly BookRule[]): ScopePlan {
  const byQuestion = new Map<number, AskedQuestion & { rules: BookRule[] }>();
  for (const rule of [...rules].sort((a, b) => a.index - b.index)) {
    const asked = byQuestion.get(rule.question);
    if (asked) asked.rules.push(rule);
    else
      byQuestion.set(rule.question, {
        metric: rule.definition.metric,
        condition: rule.definition.condition,
        rules: [rule],
      });
  }
  return { questions: [...byQuestion.values()], rules: rules.length };
}

/** The question a rule asks, the same text for every rule asking it. */
export function decisionKey(metric: AlertMetric, condition: AlertCondition): string {
  return `${metric}:${JSON.stringify(condition)}`;
}

/** The book of the rules `found`; a rule that cannot be read is logged and left out. */
export function compileRules(found: readonly FoundRule[], logger: Logger): RuleSet {
  const rules: BookRule[] = [];
  const questions = new Map<string, number>();
  const index = new Map<string, BookRule[]>();
  for (const rule of found) {
    if (!rule.ok) {
      logger.warn({ err: rule.error, rule: rule.id }, 'alert rule skipped: it cannot be read');
      continue;
    }
    // The store's reader gives only definitions of the shapes perch writes (unreadable ones are not ok).
    const { scope, metric, condition } = rule.definition;
    const key = decisionKey(metric, condition);
    const question = questions.get(key) ?? questions.size;
    questions.set(key, question);
    const dimensions = [scope.accounts, scope.tags, scope.platform].filter((d) => d !== undefined).length;
    const entry: BookRule = {
      id: rule.id,
      definition: rule.definition,
      question,
      index: rules.length,
      narrowed: dimensions > 1,
    };
    rules.push(entry);
    for (const { kind, value } of scopeKeys(scope)) {
      const name = `${kind}:${value}`;
      const list = index.get(name);
      if (list) list.push(entry);
      else index.set(name, [entry]);
    }
  }
  return new RuleSet(rules, index);
}

/** The rules one tracker weighs, read again from the store only when their version moved. */
export class AlertRuleBook {
  private version: number | null = null;
  private set = new RuleSet([], new Map());

  constructor(private readonly logger: Logger) {}

  /** The rules as of `db`'s transaction. */
  async current(db: Executor): Promise<RuleSet> {
    const version = await alertRulesVersion(db);
    if (version !== this.version) {
      this.set = compileRules(await enabledAlertRules(db), this.logger);
      this.version = version;
    }
    return this.set;
  }
}
