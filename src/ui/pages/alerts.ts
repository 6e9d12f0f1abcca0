// Alerts: the rules (admin keys only) with a form to add one, and each rule's page to edit or
// delete it and read when it fired. The same use cases as the API and `perch alerts`.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { describeCondition, describeScope } from '../../domain/alert-words.ts';
import { PerchError, type FieldProblem } from '../../domain/errors.ts';
import { handleText } from '../../domain/figures-text.ts';
import {
  changeAlertRule,
  createAlertRule,
  firingsOf,
  getAlertRule,
  listAlertRuleViews,
  removeAlertRule,
  type AlertDeps,
  type AlertRuleView,
  type FiringView,
} from '../../services/alerts.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { DoneQuery, FormBody, IdParams } from '../forms.ts';
import { accountHref, num, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { AlertBody, alertForm, EMPTY_FORM, formOf, ruleInput, type AlertForm } from './alert-form.ts';

const DONE: Record<string, string> = {
  created: 'The alert rule is created. It is weighed at each check of the accounts in its scope.',
  saved: 'The alert rule is saved.',
  deleted: 'The alert rule is deleted.',
};

const ruleRow = (r: AlertRuleView) => html`<tr data-alert-id="${r.id}">
  <td><a href="/ui/alerts/${r.id}">${r.name}</a></td>
  <td>${r.metric} ${describeCondition(r.condition)}${r.problem ? ' (cannot be read: change or delete it)' : ''}</td>
  <td>${describeScope(r.scope)}</td>
  <td>${r.cooldown}</td>
  <td>${r.enabled ? 'enabled' : 'disabled'}</td>
</tr>`;

function rulesTable(rules: AlertRuleView[]): Html {
  if (rules.length === 0)
    return html`<p class="hint">No alert rules yet: add one above to hear about what matters.</p>`;
  return html`<div class="table-wrap">
<table id="alerts">
<thead>
<tr>
  <th scope="col">Name</th>
  <th scope="col">Fires when</th>
  <th scope="col">Accounts</th>
  <th scope="col">Cooldown</th>
  <th scope="col">State</th>
</tr>
</thead>
<tbody>
${rules.map(ruleRow)}
</tbody>
</table>
</div>`;
}

/** The notice of a refused form: what is wrong, field by field (each also shown at its field). */
function refused(error: PerchError): Html {
  const items = error.errors ?? [];
  if (items.length === 0) return notice('error', error.detail);
  return html`<div class="notice error" role="alert">
  <p>The rule was not saved:</p>
  <ul>
    ${items.map((p) => html`<li>${(p.field ?? '').replace(/^body\//, '')}: ${p.message}</li>`)}
  </ul>
</div>`;
}

async function alertsPage(
  alerts: AlertDeps,
  session: UiSession,
  top: Html,
  form: AlertForm = EMPTY_FORM,
  problems: readonly FieldProblem[] = [],
): Promise<Html> {
  const rules = await listAlertRuleViews(alerts);
  const body = html`<h1>Alerts</h1>
${top}
<section>
<h2>Add an alert rule</h2>
${alertForm(session, '/ui/alerts', form, problems, 'Create rule')}
</section>
<section>
<h2>Rules</h2>
${rulesTable(rules)}
</section>`;
  return layout({ title: 'Alerts', session, section: 'alerts', body });
}

const firingRow = (f: FiringView) => html`<tr>
  <td>${
    f.account.platform && f.account.username
      ? html`<a href="${accountHref(f.account.platform, f.account.username)}">${handleText(f.account.username)}</a>`
      : f.account.id
  }</td>
  <td>${when(f.firedAt)}</td>
  <td class="n">${f.value === null ? '—' : num(f.value)}</td>
  <td class="n">${f.count}</td>
</tr>`;

function firingsTable(firings: FiringView[]): Html {
  if (firings.length === 0) return html`<p class="hint">It has not fired yet.</p>`;
  return html`<div class="table-wrap">
<table id="firings">
<thead>
<tr>
  <th scope="col">Account</th>
  <th scope="col">Last fired</th>
  <th scope="col" class="n">Value</th>
  <th scope="col" class="n">Times</th>
</tr>
</thead>
<tbody>
${firings.map(firingRow)}
</tbody>
</table>
</div>`;
}

async function rulePage(
  alerts: AlertDeps,
  session: UiSession,
  id: string,
  top: Html,
  form?: AlertForm,
  problems: readonly FieldProblem[] = [],
): Promise<Html> {
  const rule = await getAlertRule(alerts, id);
  const firings = await firingsOf(alerts, id);
  const body = html`<p class="crumbs"><a href="/ui/alerts">Alerts</a></p>
<h1>${rule.name}</h1>
${top}
${notice('error', rule.problem?.detail)}
<p>${rule.metric} ${describeCondition(rule.condition)}; ${describeScope(rule.scope)}; at most once per account per ${rule.cooldown}${rule.enabled ? '' : ' (disabled)'}.</p>
<section>
<h2>When it fired</h2>
${firingsTable(firings)}
</section>
<section>
<h2>Edit</h2>
${alertForm(session, `/ui/alerts/${rule.id}`, form ?? formOf(rule), problems, 'Save')}
<form method="post" action="/ui/alerts/${rule.id}/delete">
  ${csrfField(session)}
  <button type="submit" class="danger">Delete this rule</button>
</form>
</section>`;
  return layout({ title: `Alert: ${rule.name}`, session, section: 'alerts', body });
}

/** A refused form goes back with its values and problems; anything else is the error page's. */
function refusedOr(thrown: unknown): PerchError {
  if (thrown instanceof PerchError && thrown.code === 'validation_failed') return thrown;
  throw thrown;
}

export function registerAlertsPages(root: FastifyInstance, alerts: AlertDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'admin' } } as const;
  const done = (key: string | undefined) => notice('ok', key === undefined ? null : (DONE[key] ?? null));

  app.get('/ui/alerts', { ...route, schema: { querystring: DoneQuery } }, async (request, reply) =>
    sendPage(reply, await alertsPage(alerts, sessionOf(request), done(request.query.done))),
  );

  app.post('/ui/alerts', { ...route, schema: { body: AlertBody } }, async (request, reply) => {
    const session = sessionOf(request);
    try {
      const rule = await createAlertRule(alerts, ruleInput(request.body, false), session.keyId);
      return reply.redirect(`/ui/alerts/${rule.id}?done=created`, 303);
    } catch (thrown) {
      const error = refusedOr(thrown);
      const page = await alertsPage(alerts, session, refused(error), request.body, error.errors ?? []);
      return sendPage(reply, page, 400);
    }
  });

  app.get(
    '/ui/alerts/:id',
    { ...route, schema: { params: IdParams, querystring: DoneQuery } },
    async (request, reply) =>
      sendPage(reply, await rulePage(alerts, sessionOf(request), request.params.id, done(request.query.done))),
  );

  app.post('/ui/alerts/:id', { ...route, schema: { params: IdParams, body: AlertBody } }, async (request, reply) => {
    const session = sessionOf(request);
    const { id } = request.params;
    try {
      await changeAlertRule(alerts, id, ruleInput(request.body, true), session.keyId);
      return reply.redirect(`/ui/alerts/${id}?done=saved`, 303);
    } catch (thrown) {
      const error = refusedOr(thrown);
      const page = await rulePage(alerts, session, id, refused(error), request.body, error.errors ?? []);
      return sendPage(reply, page, 400);
    }
  });

  app.post(
    '/ui/alerts/:id/delete',
    { ...route, schema: { params: IdParams, body: FormBody({}) } },
    async (request, reply) => {
      await removeAlertRule(alerts, request.params.id, sessionOf(request).keyId);
      return reply.redirect('/ui/alerts?done=deleted', 303);
    },
  );
}
