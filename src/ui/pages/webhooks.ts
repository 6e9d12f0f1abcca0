// Webhooks: the endpoints (admin keys only), a form to add one (its signing secret shown once),
// per endpoint Send test, Enable/Disable and its recent deliveries. The same use cases as the API.
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { EVENT_TYPES } from '../../domain/events.ts';
import type { AppDeps } from '../../http/deps.ts';
import {
  changeWebhook,
  createWebhook,
  deliveriesOf,
  getWebhook,
  listWebhookViews,
  sendTestEvent,
  toView,
  type WebhookDeps,
} from '../../services/webhooks.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice } from '../layout.ts';
import { sessionOf } from '../session.ts';

const DONE: Record<string, string> = {
  tested: 'A webhook.test event is queued for this endpoint.',
  enabled: 'The webhook is enabled.',
  disabled: 'The webhook is disabled.',
};

async function webhooksPage(deps: AppDeps, service: WebhookDeps, session: UiSession, top: Html): Promise<string> {
  const hooks = await listWebhookViews(service);
  const body = html`<h1>Webhooks</h1>${top}
<section><h2>Add a webhook</h2>
<form method="post" action="/ui/webhooks">${csrfField(session)}
  <div class="filters"><div class="wide"><label for="hook-url">URL</label><input id="hook-url" name="url" type="url" required placeholder="https://example.com/perch" autocomplete="off"></div>
  <div class="wide"><label for="hook-description">Description (optional)</label><input id="hook-description" name="description" maxlength="200" autocomplete="off"></div></div>
  <fieldset><legend>Events</legend>${EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="events" value="${t}" checked> <code>${t}</code></label>`)}</fieldset>
  <p><button type="submit">Create webhook</button></p>
</form></section>
<section><h2>Endpoints</h2>${
    hooks.length === 0
      ? html`<p class="hint">No webhooks yet: add one above to be told when accounts change.</p>`
      : html`<div class="table-wrap"><table id="webhooks"><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${hooks.map(
          (
            h,
          ) => html`<tr data-webhook-id="${h.id}"><td><a href="/ui/webhooks/${h.id}">${h.url}</a>${h.description ? html`<br><span class="hint">${h.description}</span>` : ''}</td><td>${h.events.length === EVENT_TYPES.length ? 'all' : h.events.join(', ')}</td>
<td>${h.enabled ? 'enabled' : html`disabled${h.disabledReason ? html` <span class="hint">(${h.disabledReason})</span>` : ''}`}</td>
<td><div class="row-actions"><form method="post" action="/ui/webhooks/${h.id}/test">${csrfField(session)}<button type="submit"${h.enabled ? '' : html` disabled`} aria-label="Send test to ${h.url}">Send test</button></form>
<form method="post" action="/ui/webhooks/${h.id}/${h.enabled ? 'disable' : 'enable'}">${csrfField(session)}<button type="submit" aria-label="${h.enabled ? 'Disable' : 'Enable'} ${h.url}">${h.enabled ? 'Disable' : 'Enable'}</button></form></div></td></tr>`,
        )}</tbody></table></div>`
  }</section>`;
  return layout({ title: 'Webhooks', session, section: 'webhooks', body }).text;
}

export function registerWebhooksPage(app: FastifyInstance, deps: AppDeps): void {
  const service: WebhookDeps = {
    store: deps.store,
    clock: deps.clock,
    keyHashSecret: deps.keyHashSecret,
    allowPrivate: deps.config.webhookAllowPrivate,
    notify: () => deps.deliverer?.notify(),
  };
  const route = { config: { access: 'public', ui: 'admin' } } as const;
  const send = (reply: { type(t: string): { send(b: string): unknown } }, page: string) =>
    reply.type('text/html; charset=utf-8').send(page);

  app.get('/ui/webhooks', route, async (request, reply) => {
    const done = DONE[String((request.query as Record<string, unknown>).done)] ?? null;
    return send(reply, await webhooksPage(deps, service, sessionOf(request), notice('ok', done)));
  });

  app.post('/ui/webhooks', route, async (request, reply) => {
    const session = sessionOf(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const events = ([] as unknown[]).concat(body.events ?? []).filter((e): e is string => typeof e === 'string');
    const description =
      typeof body.description === 'string' && body.description.trim() !== '' ? body.description.trim() : null;
    try {
      const { webhook, secret } = await createWebhook(
        service,
        { url: String(body.url ?? '').trim(), events, description },
        session.keyId,
      );
      const top = html`<section class="created" aria-labelledby="created-title"><h2 id="created-title">Webhook created for ${webhook.url}</h2>
<p>Deliveries are signed with this secret. Copy it now: it is shown only this once.</p>
<div class="secret"><label for="new-secret">Signing secret</label><input id="new-secret" value="${secret}" readonly spellcheck="false"><button type="button" data-copy="new-secret">Copy</button></div></section>`;
      return send(reply.code(201), await webhooksPage(deps, service, session, top));
    } catch (thrown) {
      if (!(thrown instanceof PerchError)) throw thrown;
      return send(reply.code(400), await webhooksPage(deps, service, session, notice('error', thrown.detail)));
    }
  });

  app.post('/ui/webhooks/:id/test', route, async (request, reply) => {
    await sendTestEvent(service, (request.params as { id: string }).id);
    return reply.redirect('/ui/webhooks?done=tested', 303);
  });
  for (const action of ['enable', 'disable'] as const) {
    app.post(`/ui/webhooks/:id/${action}`, route, async (request, reply) => {
      await changeWebhook(
        service,
        (request.params as { id: string }).id,
        { enabled: action === 'enable' },
        sessionOf(request).keyId,
      );
      return reply.redirect(`/ui/webhooks?done=${action}d`, 303);
    });
  }

  app.get('/ui/webhooks/:id', route, async (request, reply) => {
    const { id } = request.params as { id: string };
    const hook = toView(await getWebhook(service, id), deps.clock.now());
    const attempts = await deliveriesOf(service, id, { limit: 50 });
    const body = html`<p class="crumbs"><a href="/ui/webhooks">Webhooks</a></p><h1>${hook.url}</h1>
<p>${hook.enabled ? 'Enabled' : 'Disabled'}; events: ${hook.events.join(', ')}.</p>
<section><h2>Deliveries</h2>${
      attempts.length === 0
        ? html`<p class="hint">No deliveries yet. Send a test from the list to see one.</p>`
        : html`<div class="table-wrap"><table id="deliveries"><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col" class="n">Try</th><th scope="col">Answer</th><th scope="col" class="n">Took</th></tr></thead>
<tbody>${attempts.map((a) => html`<tr><td>${when(new Date(a.at).toISOString())}</td><td><code>${a.eventType}</code></td><td class="n">${a.attempt}</td><td>${a.statusCode ?? a.error ?? '—'}</td><td class="n">${a.durationMs} ms</td></tr>`)}</tbody></table></div>`
    }</section>`;
    return send(reply, layout({ title: 'Webhook', session: sessionOf(request), section: 'webhooks', body }).text);
  });
}
