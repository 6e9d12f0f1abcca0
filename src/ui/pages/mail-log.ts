// The mail delivery log: every attempt to send a message (digests and alerts), newest first,
// beside the webhook deliveries.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DigestDeps } from '../../services/digests.ts';
import { readMailLog, type MailAttemptView } from '../../services/mail-log.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { mailOff } from './digests.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const attemptRow = (a: MailAttemptView) => html`<tr>
  <td>${when(iso(a.at))}</td>
  <td>${a.kind}</td>
  <td>${a.subject}</td>
  <td>${a.to.join(', ')}</td>
  <td class="n">${a.attempt}</td>
  <td>${a.outcome}${a.nextRetryAt === null ? '' : html`, again ${when(iso(a.nextRetryAt))}`}</td>
  <td>${a.error ?? a.response ?? '—'}</td>
</tr>`;

function attemptsTable(attempts: MailAttemptView[]): Html {
  if (attempts.length === 0) return html`<p class="hint" id="mail-none">No message sent yet.</p>`;
  return html`<div class="table-wrap">
<table id="mail-log">
<thead>
<tr>
  <th scope="col">When</th>
  <th scope="col">Kind</th>
  <th scope="col">Subject</th>
  <th scope="col">To</th>
  <th scope="col" class="n">Try</th>
  <th scope="col">Outcome</th>
  <th scope="col">Server said</th>
</tr>
</thead>
<tbody>
${attempts.map(attemptRow)}
</tbody>
</table>
</div>`;
}

export function registerMailLogPage(root: FastifyInstance, digests: DigestDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/ui/mail', { config: { access: 'public', ui: 'admin' } }, async (request, reply) => {
    const attempts = await readMailLog(digests, { limit: 100 });
    const body = html`<p class="crumbs"><a href="/ui/digests">Digests</a> · <a href="/ui/webhooks">Webhooks</a></p>
<h1>Mail delivery log</h1>
${mailOff(digests)}
${attemptsTable(attempts)}`;
    return sendPage(reply, layout({ title: 'Mail', session: sessionOf(request), section: 'digests', body }));
  });
}
