// Keys: the API keys (never their secrets), a form to create one (the key is shown once, with a
// copy button), and a Revoke button per key. Admin keys only.
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { ROLES, type Role } from '../../domain/roles.ts';
import { CONTROL_CHARS } from '../../domain/text.ts';
import type { AppDeps } from '../../http/deps.ts';
import { issueApiKey, listKeys, revokeKey, type CreatedApiKey } from '../../services/api-keys.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice } from '../layout.ts';
import { sessionOf } from '../session.ts';

const SHOWN = 500;

function created(key: CreatedApiKey): Html {
  return html`<section class="created" aria-labelledby="created-title"><h2 id="created-title">Key created for ${key.username}</h2>
<p>Copy it now: it is shown only this once.</p>
<div class="secret"><label for="new-key">New API key</label><input id="new-key" value="${key.apiKey}" readonly spellcheck="false">
<button type="button" data-copy="new-key">Copy</button></div></section>`;
}

async function keysPage(deps: AppDeps, session: UiSession, top: Html): Promise<string> {
  const keys = await listKeys(deps.store, { includeRevoked: false, limit: SHOWN });
  const body = html`<h1>Keys</h1>
${top}
<section><h2>Create a key</h2>
<form class="filters" method="post" action="/ui/keys">${csrfField(session)}
  <div><label for="key-username">Username</label><input id="key-username" name="username" required maxlength="100" autocomplete="off"></div>
  <div><label for="key-role">Role</label><select id="key-role" name="role">${ROLES.map((r) => html`<option value="${r}">${r}</option>`)}</select></div>
  <div><label for="key-name">Name (optional)</label><input id="key-name" name="name" maxlength="100" autocomplete="off"></div>
  <div class="actions"><button type="submit">Create key</button></div>
</form></section>
<section><h2>Active keys</h2>
${
  keys.length === 0
    ? html`<p class="hint">No stored keys (ADMIN_API_KEY, if set, is not listed).</p>`
    : html`<div class="table-wrap"><table id="keys">
<thead><tr><th scope="col">Key</th><th scope="col">Username</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${keys.map(
        (
          k,
        ) => html`<tr data-key-id="${k.id}"><td><code>${k.start}…</code>${k.name ? html` ${k.name}` : ''}</td><td>${k.username}</td><td>${k.role}</td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
<td><form method="post" action="/ui/keys/${k.id}/revoke" data-confirm="Revoke the key ${k.start}… of ${k.username}? Applications using it stop working.">${csrfField(session)}<button type="submit" class="danger" aria-label="Revoke ${k.start}… of ${k.username}">Revoke</button></form></td></tr>`,
      )}</tbody></table></div>`
}</section>`;
  return layout({ title: 'Keys', session, section: 'keys', body }).text;
}

const field = (body: Record<string, unknown>, name: string) =>
  typeof body[name] === 'string' ? (body[name] as string).trim() : '';

export function registerKeysPage(app: FastifyInstance, deps: AppDeps): void {
  const route = { config: { access: 'public', ui: 'admin' } } as const;
  app.get('/ui/keys', route, async (request, reply) => {
    const done = (request.query as Record<string, unknown>).done === 'revoked' ? 'The key is revoked.' : null;
    return reply.type('text/html; charset=utf-8').send(await keysPage(deps, sessionOf(request), notice('ok', done)));
  });

  app.post('/ui/keys', route, async (request, reply) => {
    const session = sessionOf(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const username = field(body, 'username');
    const name = field(body, 'name');
    const role = field(body, 'role') as Role;
    try {
      if (username === '' || username.length > 100 || CONTROL_CHARS.test(username))
        throw new PerchError('validation_failed', 'Username must be 1-100 characters.');
      if (name.length > 100 || CONTROL_CHARS.test(name))
        throw new PerchError('validation_failed', 'Name must be at most 100 characters.');
      if (!ROLES.includes(role)) throw new PerchError('validation_failed', 'Role must be app or admin.');
      const result = await issueApiKey(deps.store, deps.keyHashSecret, deps.clock, {
        role,
        username,
        name: name || null,
        actor: session.keyId,
      });
      return reply
        .code(201)
        .type('text/html; charset=utf-8')
        .send(await keysPage(deps, session, created(result.body)));
    } catch (thrown) {
      if (!(thrown instanceof PerchError)) throw thrown;
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(await keysPage(deps, session, notice('error', thrown.detail)));
    }
  });

  app.post('/ui/keys/:id/revoke', route, async (request, reply) => {
    const { id } = request.params as { id: string };
    await revokeKey(deps.store, deps.clock, id, {
      actor: sessionOf(request).keyId,
      envAdminConfigured: deps.config.adminApiKey !== null,
    });
    deps.authenticator.invalidate(id);
    return reply.redirect('/ui/keys?done=revoked', 303);
  });
}
