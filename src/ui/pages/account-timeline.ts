// The account page's timeline: the account's latest events as sentences, newest first, from the
// events' account index (events recorded under an earlier name stay with that name).
import type { Account } from '../../domain/account.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { readEvents } from '../../services/events.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { eventCell } from '../sentences.ts';

const SHOWN = 20;

export async function accountTimeline(accounts: ServiceDeps, account: Account): Promise<Html> {
  const page = await readEvents(accounts.store, {
    after: 0,
    limit: SHOWN,
    newest: true,
    platform: account.platform,
    usernameKey: account.username.toLowerCase(),
  });
  if (page.data.length === 0) return html`<p class="hint">Nothing has happened to this account yet.</p>`;
  const item = (e: (typeof page.data)[number]) => html`<li data-type="${e.type}">
  ${when(e.createdAt)}
  ${eventCell(e)}
</li>`;
  const query = new URLSearchParams({ platform: account.platform, username: account.username }).toString();
  return html`<ol class="timeline" id="timeline">
${[...page.data].reverse().map(item)}
</ol>
<p><a href="/ui/events?${query}">All of this account's events</a></p>`;
}
