// One webhook endpoint's page: its URL, state and events, and its recent delivery attempts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { deliveriesOf, getWebhook, toView, type WebhookDeps } from '../../services/webhooks.ts';
import { IdParams } from '../forms.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';

type Attempt = Awaited<ReturnType<typeof deliveriesOf>>[number];

const attemptRow = (a: Attempt) => html`<tr>
  <td>${when(new Date(a.at).toISOString())}</td>
  <td><code>${a.eventType}</code></td>
  <td class="n">${a.attempt}</td>
  <td>${a.statusCode ?? a.error ?? '—'}</td>
  <td class="n">${a.durationMs} ms</td>
</tr>`;

function deliveriesTable(attempts: Attempt[]): Html {
  if (attempts.length === 0) return html`<p class="hint">No deliveries yet. Send a test from the list to see one.</p>`;
  return html`<div class="table-wrap">
<table id="deliveries">
<thead>
<tr>
  <th scope="col">When</th>
  <th scope="col">Event</th>
  <th scope="col" class="n">Try</th>
  <th scope="col">Answer</th>
  <th scope="col" class="n">Took</th>
</tr>
</thead>
<tbody>
${attempts.map(attemptRow)}
</tbody>
</table>
</div>`;
}

export function registerWebhookPage(root: FastifyInstance, webhooks: WebhookDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'admin' } } as const;
  app.get('/ui/webhooks/:id', { ...route, schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params;
    const hook = toView(await getWebhook(webhooks, id), webhooks.clock.now());
    const attempts = await deliveriesOf(webhooks, id, { limit: 50 });
    const body = html`<p class="crumbs"><a href="/ui/webhooks">Webhooks</a></p>
<h1>${hook.url}</h1>
<p>${hook.enabled ? 'Enabled' : 'Disabled'}; events: ${hook.events.join(', ')}.</p>
<section>
<h2>Deliveries</h2>
${deliveriesTable(attempts)}
</section>`;
    return sendPage(reply, layout({ title: 'Webhook', session: sessionOf(request), section: 'webhooks', body }));
  });
}
