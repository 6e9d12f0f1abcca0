// The alert rule form, shared by the Alerts page (create) and a rule's page (edit): its fields as
// plain controls (no script needed), the form's values turned into the rule the service checks,
// and the service's field problems said beside the fields they name.
import { Type, type Static } from '@sinclair/typebox';
import type { FieldProblem } from '../../domain/errors.ts';
import type { AlertRuleView } from '../../services/alerts.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { FormBody, Text } from '../forms.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';

export const AlertBody = FormBody({
  name: Text(200),
  metric: Text(50),
  kind: Text(50),
  amount: Type.Optional(Text(50)),
  windowHours: Type.Optional(Text(50)),
  sensitivity: Type.Optional(Text(10)),
  tags: Type.Optional(Text(5_000)),
  platform: Type.Optional(Text(50)),
  accounts: Type.Optional(Text(5_000)),
  cooldown: Type.Optional(Text(50)),
  recipients: Type.Optional(Text(5_000)),
  enabled: Type.Optional(Text(10)),
});
export type AlertForm = Static<typeof AlertBody>;

const KINDS = [
  ['above', 'is above'],
  ['below', 'is below'],
  ['changePercent', 'changes by % within a window'],
  ['anomaly', 'has an unusual day (anomaly)'],
  ['quietDays', 'no post for days'],
] as const;
const METRICS = [
  ['followers', 'Followers'],
  ['following', 'Following'],
  ['posts', 'Posts'],
  ['engagementRate', 'Engagement rate (%)'],
] as const;

const split = (text: string | undefined) =>
  (text ?? '')
    .split(/[,\s]+/)
    .map((v) => v.trim())
    .filter((v) => v !== '');
/** A number, or the text as typed, so the check names the field instead of the form guessing. */
const numeric = (text: string | undefined): number | string =>
  text !== undefined && text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text ?? '');

/** The rule a submitted form describes, as the API would take it. */
export function ruleInput(form: AlertForm, editing: boolean): Record<string, unknown> {
  const amount = numeric(form.amount);
  const condition =
    form.kind === 'changePercent'
      ? { changePercent: amount, windowHours: numeric(form.windowHours) }
      : form.kind === 'anomaly'
        ? { anomaly: { sensitivity: numeric(form.sensitivity) } }
        : { [form.kind]: amount };
  const scope: Record<string, unknown> = {};
  if (split(form.tags).length > 0) scope.tags = split(form.tags);
  if (form.platform) scope.platform = form.platform;
  if (split(form.accounts).length > 0) scope.accounts = split(form.accounts);
  return {
    name: form.name,
    metric: form.metric,
    condition,
    scope,
    cooldown: form.cooldown?.trim() || '24h',
    recipients: split(form.recipients),
    ...(editing ? { enabled: form.enabled === 'on' } : {}),
  };
}

/** The form's values for a stored rule. */
export function formOf(rule: AlertRuleView): AlertForm {
  // A condition that cannot be read is asked for anew (the form starts as a level).
  const c = rule.condition ?? { above: '' };
  const kind = Object.keys(c)[0] ?? 'above';
  const amount =
    'above' in c
      ? c.above
      : 'below' in c
        ? c.below
        : 'changePercent' in c
          ? c.changePercent
          : 'quietDays' in c
            ? c.quietDays
            : '';
  return {
    name: rule.name,
    metric: rule.metric,
    kind,
    amount: String(amount),
    windowHours: 'windowHours' in c ? String(c.windowHours) : '24',
    sensitivity: 'anomaly' in c ? String(c.anomaly.sensitivity) : '3',
    tags: (rule.scope.tags ?? []).join(', '),
    platform: rule.scope.platform ?? '',
    accounts: (rule.scope.accounts ?? []).join(', '),
    cooldown: rule.cooldown,
    recipients: rule.recipients.join(', '),
    enabled: rule.enabled ? 'on' : '',
  };
}

export const EMPTY_FORM: AlertForm = {
  name: '',
  metric: 'followers',
  kind: 'above',
  amount: '',
  windowHours: '24',
  sensitivity: '3',
  cooldown: '24h',
};

/** Which control shows the problem of a field the service named (`body/condition/windowHours`). */
function controlOf(field: string | undefined): string {
  const path = (field ?? '').replace(/^body\/?/, '');
  if (path.startsWith('condition/windowHours')) return 'windowHours';
  if (path.startsWith('condition/anomaly')) return 'sensitivity';
  if (path.startsWith('condition')) return 'amount';
  if (path.startsWith('scope/')) return path.split('/')[1] ?? 'tags';
  return path.split('/')[0] || 'name';
}

const option = (value: string, label: string, selected: string | undefined) =>
  html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;

/** The form; `problems` from a refused submission are shown at their fields and linked from the top. */
export function alertForm(
  session: UiSession,
  action: string,
  values: AlertForm,
  problems: readonly FieldProblem[],
  submit: string,
): Html {
  const byControl = new Map<string, string[]>();
  for (const p of problems)
    byControl.set(controlOf(p.field), [...(byControl.get(controlOf(p.field)) ?? []), p.message]);
  const id = (name: string) => `alert-${name}`;
  const invalid = (name: string) =>
    byControl.has(name) ? html` aria-invalid="true" aria-describedby="${id(name)}-problem"` : '';
  const problem = (name: string) =>
    byControl.has(name)
      ? html`<span class="field-problem" id="${id(name)}-problem">${byControl.get(name)?.join('; ')}</span>`
      : '';
  const field = (name: keyof AlertForm, label: string, attrs: Html, hint = '') => html`<div class="wide">
      <label for="${id(name)}">${label}</label>
      <input id="${id(name)}" name="${name}" value="${values[name] ?? ''}"${attrs}${invalid(name)}>
      ${hint ? html`<span class="hint">${hint}</span>` : ''}
      ${problem(name)}
    </div>`;
  return html`<form method="post" action="${action}" class="alert-form" novalidate>
  ${csrfField(session)}
  <div class="filters">
    ${field('name', 'Name', html` maxlength="200" required autocomplete="off"`)}
    <div>
      <label for="${id('metric')}">Metric</label>
      <select id="${id('metric')}" name="metric"${invalid('metric')}>
        ${METRICS.map(([v, l]) => option(v, l, values.metric))}
      </select>
      ${problem('metric')}
    </div>
    <div>
      <label for="${id('kind')}">Fires when it</label>
      <select id="${id('kind')}" name="kind">
        ${KINDS.map(([v, l]) => option(v, l, values.kind))}
      </select>
    </div>
    ${field('amount', 'Amount', html` inputmode="decimal" autocomplete="off"`, 'the level, the % (negative: a fall), or the days')}
    ${field('windowHours', 'Window (hours)', html` inputmode="decimal" autocomplete="off"`, 'for a change')}
    <div>
      <label for="${id('sensitivity')}">Sensitivity</label>
      <select id="${id('sensitivity')}" name="sensitivity"${invalid('sensitivity')}>
        ${['1', '2', '3', '4', '5'].map((v) => option(v, v === '1' ? '1 (rarely)' : v === '5' ? '5 (early)' : v, values.sensitivity))}
      </select>
      ${problem('sensitivity')}
    </div>
  </div>
  <fieldset>
    <legend>Which accounts (all when empty)</legend>
    <div class="filters">
      ${field('tags', 'Tags', html` autocomplete="off"`, 'separated by commas: one of them')}
      <div>
        <label for="${id('platform')}">Platform</label>
        <select id="${id('platform')}" name="platform"${invalid('platform')}>
          ${option('', 'Any', values.platform)}${option('x', 'X', values.platform)}${option('bluesky', 'Bluesky', values.platform)}
        </select>
      </div>
      ${field('accounts', 'Accounts', html` autocomplete="off"`, 'acc_… ids, separated by commas')}
    </div>
  </fieldset>
  <div class="filters">
    ${field('cooldown', 'Cooldown', html` autocomplete="off"`, 'at most once per account within it, e.g. 24h')}
    ${field('recipients', 'E-mail recipients', html` autocomplete="off"`, 'separated by commas (optional)')}
    ${
      submit === 'Save'
        ? html`<div><label class="check"><input type="checkbox" name="enabled"${values.enabled === 'on' ? html` checked` : ''}> Enabled</label></div>`
        : ''
    }
  </div>
  <p><button type="submit">${submit}</button></p>
</form>`;
}
