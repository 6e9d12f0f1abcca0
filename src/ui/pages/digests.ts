// Digests: the list (admin keys only) with each one's schedule and next send, a form to add one,
// Delete per digest, and the mail delivery log. The same use cases as the API.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { createDigest, readDigests, removeDigest, type DigestDeps, type DigestView } from '../../services/digests.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { DoneQuery, FormBody, IdParams } from '../forms.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { DigestBody, digestForm, digestInput, problemList } from './digest-form.ts';

const DONE: Record<string, string> = {
  deleted: 'The digest is deleted.',
  saved: 'The digest is saved.',
};

export const mailOff = (deps: DigestDeps): Html =>
  deps.mailOn
    ? html``
    : html`<p class="notice ok" role="status" id="mail-off">Mail is off (no SMTP_URL): digests are previews only and nothing is sent.</p>`;

function digestRow(session: UiSession, d: DigestView): Html {
  return html`<tr data-digest-id="${d.id}">
  <td><a href="/ui/digests/${d.id}">${d.name}</a></td>
  <td>${d.schedule} at ${d.at} ${d.timeZone}</td>
  <td>${d.nextSendAt === null ? 'preview only' : when(d.nextSendAt)}</td>
  <td>${d.recipients.join(', ')}</td>
  <td>
    <div class="row-actions">
      <a href="/ui/digests/${d.id}" aria-label="Edit and preview ${d.name}">Edit</a>
      <form method="post" action="/ui/digests/${d.id}/delete">
        ${csrfField(session)}
        <button type="submit" aria-label="Delete ${d.name}">Delete</button>
      </form>
    </div>
  </td>
</tr>`;
}

function digestsTable(session: UiSession, digests: DigestView[]): Html {
  if (digests.length === 0) return html`<p class="hint" id="digests-none">No digests yet: add one above.</p>`;
  return html`<div class="table-wrap">
<table id="digests">
<thead>
<tr>
  <th scope="col">Name</th>
  <th scope="col">When</th>
  <th scope="col">Next</th>
  <th scope="col">Recipients</th>
  <th scope="col"><span class="sr-only">Actions</span></th>
</tr>
</thead>
<tbody>
${digests.map((d) => digestRow(session, d))}
</tbody>
</table>
</div>`;
}

async function digestsPage(deps: DigestDeps, session: UiSession, top: Html, form: Html | null = null): Promise<Html> {
  const digests = await readDigests(deps);
  const body = html`<h1>Digests</h1>
${mailOff(deps)}
${top}
<section>
<h2>Add a digest</h2>
${form ?? digestForm(session, '/ui/digests', null, 'Create digest')}
</section>
<section>
<h2>Your digests</h2>
${digestsTable(session, digests)}
</section>
<p><a href="/ui/mail">Mail delivery log</a></p>`;
  return layout({ title: 'Digests', session, section: 'digests', body });
}

export function registerDigestsPage(root: FastifyInstance, digests: DigestDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'admin' } } as const;

  app.get('/ui/digests', { ...route, schema: { querystring: DoneQuery } }, async (request, reply) => {
    const done = request.query.done === undefined ? null : (DONE[request.query.done] ?? null);
    return sendPage(reply, await digestsPage(digests, sessionOf(request), notice('ok', done)));
  });

  app.post('/ui/digests', { ...route, schema: { body: DigestBody } }, async (request, reply) => {
    const session = sessionOf(request);
    try {
      const created = await createDigest(digests, digestInput(request.body), session.keyId);
      return reply.redirect(`/ui/digests/${created.id}?done=created`, 303);
    } catch (thrown) {
      if (!(thrown instanceof PerchError)) throw thrown;
      // The form keeps what was typed, so a person fixes the one field that was wrong.
      const top = html`${notice('error', thrown.detail)}
${problemList(thrown.errors)}`;
      return sendPage(reply, await digestsPage(digests, session, top, refill(session, request.body)), 400);
    }
  });

  app.post(
    '/ui/digests/:id/delete',
    { ...route, schema: { params: IdParams, body: FormBody({}) } },
    async (request, reply) => {
      await removeDigest(digests, request.params.id, sessionOf(request).keyId);
      return reply.redirect('/ui/digests?done=deleted', 303);
    },
  );
}

/** The create form again with what was typed in it. */
function refill(session: UiSession, body: typeof DigestBody.static): Html {
  const input = digestInput(body);
  const scope = input.scope as DigestView['scope'];
  const typed: DigestView = {
    id: '',
    name: body.name,
    scope,
    schedule: body.schedule === 'weekly' ? 'weekly' : 'daily',
    at: body.at,
    timeZone: body.timeZone,
    recipients: input.recipients as string[],
    nextSendAt: null,
    createdAt: '',
    updatedAt: '',
  };
  return digestForm(session, '/ui/digests', typed, 'Create digest');
}
