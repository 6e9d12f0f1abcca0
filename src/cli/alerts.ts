// `perch alerts list|add|remove`: manage alert rules directly in the configured store (no server
// needed), through the same use cases as the API; a running tracker weighs them after each check.
import type { Command } from 'commander';
import { describeCondition, describeScope } from '../domain/alert-words.ts';
import { createAlertRule, listAlertRuleViews, removeAlertRule } from '../services/alerts.ts';
import { withServices } from './context.ts';
import { clean, printJson, shortTime, table } from './output.ts';
import { addScopeOptions, commaList, scopeOf, type ScopeOptions } from './options.ts';

/** A number, or the text as given (so the rule's check names the field instead of guessing). */
const numeric = (value: string): number | string =>
  value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;

interface AddOptions extends ScopeOptions {
  name: string;
  metric: string;
  above?: string;
  below?: string;
  changePercent?: string;
  windowHours?: string;
  anomaly?: string;
  quietDays?: string;
  cooldown?: string;
  recipients?: string[];
  json?: boolean;
}

/** The condition the flags name; several conditions at once are passed on for the check to refuse. */
function conditionOf(o: AddOptions): Record<string, unknown> {
  const condition: Record<string, unknown> = {};
  if (o.above !== undefined) condition.above = numeric(o.above);
  if (o.below !== undefined) condition.below = numeric(o.below);
  if (o.changePercent !== undefined || o.windowHours !== undefined) {
    condition.changePercent = numeric(o.changePercent ?? '');
    condition.windowHours = numeric(o.windowHours ?? '24');
  }
  if (o.anomaly !== undefined) condition.anomaly = { sensitivity: numeric(o.anomaly) };
  if (o.quietDays !== undefined) condition.quietDays = numeric(o.quietDays);
  return condition;
}

async function add(options: AddOptions): Promise<void> {
  const input = {
    name: options.name,
    metric: options.metric,
    condition: conditionOf(options),
    scope: scopeOf(options),
    ...(options.cooldown ? { cooldown: options.cooldown } : {}),
    ...(options.recipients ? { recipients: options.recipients } : {}),
  };
  const rule = await withServices(({ services }) => createAlertRule(services.alerts, input, 'cli'));
  if (options.json) return printJson(rule);
  process.stdout.write(
    `Created alert rule ${rule.id} "${clean(rule.name)}": ${rule.metric} ${describeCondition(rule.condition)}, ${describeScope(rule.scope)}, at most once per account per ${rule.cooldown}.\n`,
  );
}

async function listAll(options: { json?: boolean }): Promise<void> {
  const rules = await withServices(({ services }) => listAlertRuleViews(services.alerts));
  if (options.json) return printJson(rules);
  if (rules.length === 0)
    return void process.stdout.write(
      'No alert rules. Add one with: perch alerts add --name "Big jumps" --metric followers --change-percent 10 --window-hours 24\n',
    );
  const rows = rules.map((r) => [
    r.id,
    clean(r.name),
    `${r.metric} ${describeCondition(r.condition)}`,
    describeScope(r.scope),
    r.cooldown,
    r.recipients.join(',') || '-',
    r.enabled ? 'yes' : 'no',
    shortTime(r.createdAt),
  ]);
  process.stdout.write(
    table(['ID', 'NAME', 'CONDITION', 'SCOPE', 'COOLDOWN', 'RECIPIENTS', 'ENABLED', 'CREATED'], rows),
  );
}

async function remove(id: string, options: { json?: boolean }): Promise<void> {
  await withServices(({ services }) => removeAlertRule(services.alerts, id, 'cli'));
  if (options.json) return printJson({ success: true, id });
  process.stdout.write(`Deleted alert rule ${id}.\n`);
}

export function registerAlertCommands(program: Command): void {
  const alerts = program.command('alerts').description('list, add and remove alert rules, directly in the store');
  alerts
    .command('list')
    .description('list alert rules')
    .option('--json', 'print them as a JSON array (the fields of GET /api/admin/alerts)')
    .action(listAll);
  const adding = alerts
    .command('add')
    .description('add an alert rule: a metric, one condition, and optionally a scope, cooldown and recipients')
    .requiredOption('--name <text>', 'what the rule is called')
    .requiredOption('--metric <metric>', 'followers, following, posts or engagementRate')
    .option('--above <n>', 'fires while the metric is above n')
    .option('--below <n>', 'fires while the metric is below n')
    .option('--change-percent <p>', 'fires when the metric moved by p % (negative: fell) over the window')
    .option('--window-hours <h>', 'the window of --change-percent (default 24)')
    .option(
      '--anomaly <sensitivity>',
      "fires when the day's change is unusual for the last 30 days (1 rarely … 5 early)",
    )
    .option('--quiet-days <d>', 'fires when the account has not posted for d days (metric posts)');
  addScopeOptions(adding)
    .option('--cooldown <duration>', 'at most one firing per account within it (default 24h)')
    .option('--recipients <addresses>', 'e-mail addresses told of each firing (separated by commas)', commaList)
    .option('--json', 'print the rule as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ perch alerts add --name "Big jumps" --metric followers --change-percent 10 --window-hours 24 --tags news\n  $ perch alerts add --name "Odd day" --metric followers --anomaly 3 --recipients desk@example.com\n  $ perch alerts add --name "Gone quiet" --metric posts --quiet-days 7 --platform bluesky',
    )
    .action(add);
  alerts
    .command('remove')
    .description('delete an alert rule and its firings')
    .argument('<id>', 'the rule id (alr_…)')
    .option('--json', 'print the result as JSON')
    .action(remove);
}
