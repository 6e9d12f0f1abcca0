// What an admin can do to one account from its page: refresh now, pause/resume, set tags, stop
// tracking. Plain forms posting to the same use cases the API calls, then back to the page.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../domain/account.ts';
import { PerchError } from '../../domain/errors.ts';
import { TAG_PATTERN, MAX_TAGS } from '../../domain/account.ts';
import type { TrackerView } from '../../domain/tracker-status.ts';
import { changeAccount, refreshAccount, stopTracking } from '../../services/account-admin.ts';
import type { ServiceDeps } from '../../services/context.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { AccountParams, FormBody, Text } from '../forms.ts';
import { accountHref } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { refOf } from './account-ref.ts';

/** Messages shown after an action, by the name the redirect carries. */
export const NOTICES: Record<string, string> = {
  refreshed: 'The account will be checked within seconds.',
  paused: 'Tracking is paused.',
  resumed: 'Tracking is resumed.',
  tagged: 'The tags are saved.',
  'follower-list-on': 'The follower list is kept from now on; the first pass is on its way.',
  'follower-list-off': 'The follower list is no longer kept.',
};

export function accountActions(session: UiSession, account: Account): Html {
  const base = accountHref(account.platform, account.username);
  const paused = account.status === 'paused';
  return html`<section class="actions" aria-label="Actions">
<form method="post" action="${base}/refresh">
  ${csrfField(session)}
  <button type="submit"${paused ? html` disabled` : ''}>Refresh now</button>
</form>
<form method="post" action="${base}/${paused ? 'resume' : 'pause'}">
  ${csrfField(session)}
  <button type="submit">${paused ? 'Resume' : 'Pause'}</button>
</form>
<form method="post" action="${base}/tags" class="inline">
  ${csrfField(session)}
  <label for="tags">Tags</label>
  <input id="tags" name="tags" value="${account.tags.join(', ')}" autocomplete="off">
  <button type="submit">Save tags</button>
</form>
<form method="post" action="${base}/stop" data-confirm="Stop tracking ${account.username}? Its history is kept.">
  ${csrfField(session)}
  <button type="submit" class="danger">Stop tracking</button>
</form>
</section>`;
}

function tagsOf(value: string): string[] {
  const tags = [
    ...new Set(
      value
        .split(/[,;|]/)
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
  const bad = tags.find((t) => !TAG_PATTERN.test(t));
  if (bad !== undefined)
    throw new PerchError(
      'validation_failed',
      `"${bad.slice(0, 70)}" is not a valid tag: use 1-64 letters, digits, spaces and _ . : -`,
    );
  if (tags.length > MAX_TAGS) throw new PerchError('validation_failed', `An account has at most ${MAX_TAGS} tags.`);
  return tags;
}

export function registerAccountActions(
  root: FastifyInstance,
  { accounts, tracker }: { accounts: ServiceDeps; tracker: TrackerView | null },
): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = {
    config: { access: 'public', ui: 'admin' },
    schema: { params: AccountParams, body: FormBody({}) },
  } as const;
  const ref = (params: { platform: string; username: string }) => refOf(accounts.config.defaultPlatform, params);
  const back = (params: { platform: string; username: string }, done: string) =>
    `${accountHref(params.platform, params.username)}?done=${done}`;

  app.post('/ui/accounts/:platform/:username/refresh', route, async (request, reply) => {
    await refreshAccount(accounts, ref(request.params), sessionOf(request).keyId);
    tracker?.notify();
    return reply.redirect(back(request.params, 'refreshed'), 303);
  });
  app.post('/ui/accounts/:platform/:username/pause', route, async (request, reply) => {
    await changeAccount(accounts, ref(request.params), { paused: true }, sessionOf(request).keyId);
    return reply.redirect(back(request.params, 'paused'), 303);
  });
  app.post('/ui/accounts/:platform/:username/resume', route, async (request, reply) => {
    await changeAccount(accounts, ref(request.params), { paused: false }, sessionOf(request).keyId);
    tracker?.notify();
    return reply.redirect(back(request.params, 'resumed'), 303);
  });
  app.post(
    '/ui/accounts/:platform/:username/tags',
    { ...route, schema: { params: AccountParams, body: FormBody({ tags: Text(2_000) }) } },
    async (request, reply) => {
      const tags = tagsOf(request.body.tags);
      await changeAccount(accounts, ref(request.params), { tags }, sessionOf(request).keyId);
      return reply.redirect(back(request.params, 'tagged'), 303);
    },
  );
  app.post('/ui/accounts/:platform/:username/stop', route, async (request, reply) => {
    await stopTracking(accounts, ref(request.params), false, sessionOf(request).keyId);
    return reply.redirect('/ui/accounts', 303);
  });
}
