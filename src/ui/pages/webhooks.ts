// Webhooks: the endpoints (admin keys only), a form to add one (its signing secret shown once),
// per endpoint Send test, Enable/Disable and its recent deliveries. The same use cases as the API.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { EVENT_TYPES } from '../../domain/events.ts';
import {
  changeWebhook,
  createWebhook,
  listWebhookViews,
  sendTestEvent,
  type WebhookDeps,
  type WebhookView,
} from '../../services/webhooks.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { DoneQuery, FormBody, IdParams, Text } from '../forms.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';

const DONE: Record<string, string> = {
  tested: 'A webhook.test event is queued for this endpoint.',
  enabled: 'The webhook is enabled.',
  disabled: 'The webhook is disabled.',
};

/** The form's fields; the checked event boxes come as one value or several. */
const CreateBody = FormBody({
  url: Text(2_000),
  description: Type.Optional(Text()),
  events: Type.Optional(Type.Union([Text(100), Type.Array(Text(100), { maxItems: 100 })])),
});

const eventBox = (t: string) => html`<label>
    <input type="checkbox" name="events" value="${t}" checked>
    <code>${t}</code>
  </label>`;

const createForm = (session: UiSession) => html`<section>
<h2>Add a webhook</h2>
<form method="post" action="/ui/webhooks">
  ${csrfField(session)}
  <div class="filters">
    <div class="wide">
      <label for="hook-url">URL</label>
      <input id="hook-url" name="url" type="url" required placeholder="https://example.com/perch" autocomplete="off">
    </div>
    <div class="wide">
      <label for="hook-description">Description (optional)</label>
      <input id="hook-description" name="description" maxlength="200" autocomplete="off">
    </div>
  </div>
  <fieldset>
  <legend>Events</legend>
  ${EVENT_TYPES.map(eventBox)}
  </fieldset>
  <p>
    <button type="submit">Create webhook</button>
  </p>
</form>
</section>`;

function hookRow(session: UiSession, h: WebhookView): Html {
  const description = h.description ? html`<br><span class="hint">${h.description}</span>` : '';
  const reason = h.disabledReason ? html` <span class="hint">(${h.disabledReason})</span>` : '';
  const toggle = h.enabled ? 'Disable' : 'Enable';
  return html`<tr data-webhook-id="${h.id}">
  <td><a href="/ui/webhooks/${h.id}">${h.url}</a>${description}</td>
  <td>${h.events.length === EVENT_TYPES.length ? 'all' : h.events.join(', ')}</td>
  <td>${h.enabled ? 'enabled' : html`disabled${reason}`}</td>
  <td>
    <div class="row-actions">
      <form method="post" action="/ui/webhooks/${h.id}/test">
        ${csrfField(session)}
        <button type="submit"${h.enabled ? '' : html` disabled`} aria-label="Send test to ${h.url}">Send test</button>
      </form>
      <form method="post" action="/ui/webhooks/${h.id}/${toggle.toLowerCase()}">
        ${csrfField(session)}
        <button type="submit" aria-label="${toggle} ${h.url}">${toggle}</button>
      </form>
    </div>
  </td>
</tr>`;
}

function hooksTable(session: UiSession, hooks: WebhookView[]): Html {
  if (hooks.length === 0)
    return html`<p class="hint">No webhooks yet: add one above to be told when accounts change.</p>`;
  return html`<div class="table-wrap">
<table id="webhooks">
<thead>
<tr>
  <th scope="col">URL</th>
  <th scope="col">Events</th>
  <th scope="col">State</th>
  <th scope="col"><span class="sr-only">Actions</span></th>
</tr>
</thead>
<tbody>
${hooks.map((h) => hookRow(session, h))}
</tbody>
</table>
</div>`;
}

async function webhooksPage(webhooks: WebhookDeps, session: UiSession, top: Html): Promise<Html> {
  const hooks = await listWebhookViews(webhooks);
  const body = html`<h1>Webhooks</h1>
${top}
${createForm(session)}
<section>
<h2>Endpoints</h2>
${hooksTable(session, hooks)}
</section>
<p><a href="/ui/mail">Mail delivery log</a> (digests and alerts)</p>`;
  return layout({ title: 'Webhooks', session, section: 'webhooks', body });
}

const createdSecret = (url: string, secret: string) => html`<section class="created" aria-labelledby="created-title">
<h2 id="created-title">Webhook created for ${url}</h2>
<p>Deliveries are signed with this secret. Copy it now: it is shown only this once.</p>
<div class="secret">
  <label for="new-secret">Signing secret</label>
  <input id="new-secret" value="${secret}" readonly spellcheck="false">
  <button type="button" data-copy="new-secret">Copy</button>
</div>
</section>`;

export function registerWebhooksPage(root: FastifyInstance, webhooks: WebhookDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'admin' } } as const;

  app.get('/ui/webhooks', { ...route, schema: { querystring: DoneQuery } }, async (request, reply) => {
    const done = request.query.done === undefined ? null : (DONE[request.query.done] ?? null);
    return sendPage(reply, await webhooksPage(webhooks, sessionOf(request), notice('ok', done)));
  });

  app.post('/ui/webhooks', { ...route, schema: { body: CreateBody } }, async (request, reply) => {
    const session = sessionOf(request);
    const { url, description, events } = request.body;
    try {
      const definition = {
        url: url.trim(),
        events: events === undefined ? [] : typeof events === 'string' ? [events] : events,
        description: description?.trim() || null,
      };
      const { webhook, secret } = await createWebhook(webhooks, definition, session.keyId);
      return sendPage(reply, await webhooksPage(webhooks, session, createdSecret(webhook.url, secret)), 201);
    } catch (thrown) {
      if (!(thrown instanceof PerchError)) throw thrown;
      return sendPage(reply, await webhooksPage(webhooks, session, notice('error', thrown.detail)), 400);
    }
  });

  const action = { ...route, schema: { params: IdParams, body: FormBody({}) } };
  app.post('/ui/webhooks/:id/test', action, async (request, reply) => {
    await sendTestEvent(webhooks, request.params.id);
    return reply.redirect('/ui/webhooks?done=tested', 303);
  });
  for (const change of ['enable', 'disable'] as const) {
    app.post(`/ui/webhooks/:id/${change}`, action, async (request, reply) => {
      await changeWebhook(webhooks, request.params.id, { enabled: change === 'enable' }, sessionOf(request).keyId);
      return reply.redirect(`/ui/webhooks?done=${change}d`, 303);
    });
  }
}
