// One digest's page: its form to edit it, the next digest rendered now (the mail's HTML in a
// frame that may run nothing, its plain text beside it) and the periods sent. The preview document is served
// on its own with a policy that lets the mail's inline styles apply and nothing else run or load.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import {
  changeDigest,
  previewDigest,
  readDigest,
  readDigestSends,
  type DigestDeps,
  type DigestView,
} from '../../services/digests.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { DoneQuery, IdParams } from '../forms.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { DigestBody, digestForm, digestInput, problemList } from './digest-form.ts';
import { mailOff } from './digests.ts';

/** The policy of the preview document: the mail's inline styles, nothing else; framed by the dashboard only. */
export const PREVIEW_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'; sandbox";

const DONE: Record<string, string> = { created: 'The digest is created.', saved: 'The digest is saved.' };

async function digestPage(deps: DigestDeps, session: UiSession, d: DigestView, top: Html): Promise<Html> {
  const [preview, sends] = await Promise.all([previewDigest(deps, d.id), readDigestSends(deps, d.id)]);
  const sent =
    sends.length === 0
      ? html`<p class="hint" id="sends-none">Nothing sent yet.</p>`
      : html`<ul id="sends">
${sends.map((s) => html`<li>${when(new Date(s.periodEnd).toISOString())}${s.late ? ' (sent late)' : ''}</li>`)}
</ul>`;
  const body = html`<p class="crumbs"><a href="/ui/digests">Digests</a></p>
<h1>${d.name}</h1>
${mailOff(deps)}
${top}
<p>${d.schedule === 'daily' ? 'Daily' : 'Weekly, on Mondays,'} at ${d.at} (${d.timeZone}) to ${d.recipients.join(', ')}.</p>
<section aria-labelledby="preview-title">
<h2 id="preview-title">Preview</h2>
<p class="hint" id="preview-subject">${preview.subject}</p>
<iframe class="digest-preview" title="Digest preview" sandbox="allow-same-origin" src="/ui/digests/${d.id}/preview.html"></iframe>
<details>
<summary>Plain text</summary>
<pre class="digest-text" id="preview-text">${preview.text}</pre>
</details>
</section>
<section>
<h2>Edit</h2>
${digestForm(session, `/ui/digests/${d.id}`, d, 'Save digest')}
</section>
<section>
<h2>Sent</h2>
${sent}
</section>`;
  return layout({ title: d.name, session, section: 'digests', body });
}

export function registerDigestPage(root: FastifyInstance, digests: DigestDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'admin' } } as const;

  app.get(
    '/ui/digests/:id',
    { ...route, schema: { params: IdParams, querystring: DoneQuery } },
    async (request, reply) => {
      const done = request.query.done === undefined ? null : (DONE[request.query.done] ?? null);
      const digest = await readDigest(digests, request.params.id);
      return sendPage(reply, await digestPage(digests, sessionOf(request), digest, notice('ok', done)));
    },
  );

  app.get('/ui/digests/:id/preview.html', { ...route, schema: { params: IdParams } }, async (request, reply) => {
    const preview = await previewDigest(digests, request.params.id);
    return reply.code(200).type('text/html; charset=utf-8').send(preview.html);
  });

  app.post('/ui/digests/:id', { ...route, schema: { params: IdParams, body: DigestBody } }, async (request, reply) => {
    const session = sessionOf(request);
    try {
      await changeDigest(digests, request.params.id, digestInput(request.body), session.keyId);
      return reply.redirect(`/ui/digests/${request.params.id}?done=saved`, 303);
    } catch (thrown) {
      if (!(thrown instanceof PerchError) || thrown.code !== 'validation_failed') throw thrown;
      const digest = await readDigest(digests, request.params.id);
      const top = html`${notice('error', thrown.detail)}
${problemList(thrown.errors)}`;
      return sendPage(reply, await digestPage(digests, session, digest, top), 400);
    }
  });
}
