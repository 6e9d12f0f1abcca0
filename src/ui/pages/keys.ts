// Keys: the API keys (never their secrets), a form to create one (the key is shown once, with a
// copy button), and a Revoke button per key. Admin keys only.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { ROLES } from '../../domain/roles.ts';
import { CONTROL_CHARS } from '../../domain/text.ts';
import { literals } from '../../http/schemas.ts';
import {
  issueApiKey,
  listKeys,
  revokeKey,
  type ApiKey,
  type CreatedApiKey,
  type KeyDeps,
} from '../../services/api-keys.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { DoneQuery, FormBody, IdParams, Text } from '../forms.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';

const SHOWN = 500;

const CreateBody = FormBody({ username: Text(), role: literals(ROLES), name: Type.Optional(Text()) });

function created(key: CreatedApiKey): Html {
  return html`<section class="created" aria-labelledby="created-title">
<h2 id="created-title">Key created for ${key.username}</h2>
<p>Copy it now: it is shown only this once.</p>
<div class="secret">
  <label for="new-key">New API key</label>
  <input id="new-key" value="${key.apiKey}" readonly spellcheck="false">
  <button type="button" data-copy="new-key">Copy</button>
</div>
</section>`;
}

const createForm = (session: UiSession) => html`<section>
<h2>Create a key</h2>
<form class="filters" method="post" action="/ui/keys">
  ${csrfField(session)}
  <div>
    <label for="key-username">Username</label>
    <input id="key-username" name="username" required maxlength="100" autocomplete="off">
  </div>
  <div>
    <label for="key-role">Role</label>
    <select id="key-role" name="role">
    ${ROLES.map((r) => html`<option value="${r}">${r}</option>`)}
    </select>
  </div>
  <div>
    <label for="key-name">Name (optional)</label>
    <input id="key-name" name="name" maxlength="100" autocomplete="off">
  </div>
  <div class="actions">
    <button type="submit">Create key</button>
  </div>
</form>
</section>`;

const keyRow = (session: UiSession, k: ApiKey) => html`<tr data-key-id="${k.id}">
  <td><code>${k.start}…</code>${k.name ? html` ${k.name}` : ''}</td>
  <td>${k.username}</td>
  <td>${k.role}</td>
  <td>${when(k.createdAt)}</td>
  <td>${when(k.lastUsedAt)}</td>
  <td>
    <form method="post" action="/ui/keys/${k.id}/revoke" data-confirm="Revoke the key ${k.start}… of ${k.username}? Applications using it stop working.">
      ${csrfField(session)}
      <button type="submit" class="danger" aria-label="Revoke ${k.start}… of ${k.username}">Revoke</button>
    </form>
  </td>
</tr>`;

function keysTable(session: UiSession, keys: ApiKey[]): Html {
  if (keys.length === 0) return html`<p class="hint">No stored keys (ADMIN_API_KEY, if set, is not listed).</p>`;
  return html`<div class="table-wrap">
<table id="keys">
<thead>
<tr>
  <th scope="col">Key</th>
  <th scope="col">Username</th>
  <th scope="col">Role</th>
  <th scope="col">Created</th>
  <th scope="col">Last used</th>
  <th scope="col"><span class="sr-only">Actions</span></th>
</tr>
</thead>
<tbody>
${keys.map((k) => keyRow(session, k))}
</tbody>
</table>
</div>`;
}

async function keysPage(keys: KeyDeps, session: UiSession, top: Html): Promise<Html> {
  const active = await listKeys(keys, { includeRevoked: false, limit: SHOWN });
  const body = html`<h1>Keys</h1>
${top}
${createForm(session)}
<section>
<h2>Active keys</h2>
${keysTable(session, active)}
</section>`;
  return layout({ title: 'Keys', session, section: 'keys', body });
}

export function registerKeysPage(root: FastifyInstance, keys: KeyDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'admin' } } as const;

  app.get('/ui/keys', { ...route, schema: { querystring: DoneQuery } }, async (request, reply) => {
    const done = request.query.done === 'revoked' ? 'The key is revoked.' : null;
    return sendPage(reply, await keysPage(keys, sessionOf(request), notice('ok', done)));
  });

  app.post('/ui/keys', { ...route, schema: { body: CreateBody } }, async (request, reply) => {
    const session = sessionOf(request);
    const username = request.body.username.trim();
    const name = (request.body.name ?? '').trim();
    try {
      if (username === '' || username.length > 100 || CONTROL_CHARS.test(username))
        throw new PerchError('validation_failed', 'Username must be 1-100 characters.');
      if (name.length > 100 || CONTROL_CHARS.test(name))
        throw new PerchError('validation_failed', 'Name must be at most 100 characters.');
      const result = await issueApiKey(keys, {
        role: request.body.role,
        username,
        name: name || null,
        actor: session.keyId,
      });
      return sendPage(reply, await keysPage(keys, session, created(result.body)), 201);
    } catch (thrown) {
      if (!(thrown instanceof PerchError)) throw thrown;
      return sendPage(reply, await keysPage(keys, session, notice('error', thrown.detail)), 400);
    }
  });

  // The same use case as DELETE /api/admin/api-keys/:id: the key is refused here at once, even
  // while its revocation waits for the store's writer.
  app.post(
    '/ui/keys/:id/revoke',
    { ...route, schema: { params: IdParams, body: FormBody({}) } },
    async (request, reply) => {
      await revokeKey(keys, request.params.id, sessionOf(request).keyId);
      return reply.redirect('/ui/keys?done=revoked', 303);
    },
  );
}
