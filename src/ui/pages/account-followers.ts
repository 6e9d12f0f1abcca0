// The account page's follower list (DESIGN §11): who followed and who left in the last 30 days,
// with dates and links to their profiles; whether the list is kept, and (before an admin switches
// it on) what one pass costs on X. The switch posts to the same use case as PATCH followerList.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../domain/account.ts';
import { followerProfileUrl } from '../../domain/followers.ts';
import {
  followerList,
  followerPage,
  switchFollowerList,
  type FollowerDeps,
  type FollowerListState,
  type FollowerRow,
} from '../../services/followers.ts';
import type { NamedRef } from '../../services/account-refs.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { AccountParams, FormBody } from '../forms.ts';
import { accountHref, num, usd, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { refOf } from './account-ref.ts';

const DAY_MS = 86_400_000;
/** Shown per list; the API and its CSV have the rest. */
const SHOWN = 50;

export interface FollowerView {
  list: FollowerListState;
  gained: FollowerRow[];
  lost: FollowerRow[];
}

/** What the section shows: the list's state and the last 30 days each way. */
export async function followerView(deps: FollowerDeps, ref: NamedRef): Promise<FollowerView> {
  const since = deps.clock.now() - 30 * DAY_MS;
  const [list, gained, lost] = await Promise.all([
    followerList(deps, ref),
    followerPage(deps, ref, { state: 'gained', since, limit: SHOWN }),
    followerPage(deps, ref, { state: 'lost', since, limit: SHOWN }),
  ]);
  return { list, gained: gained.rows, lost: lost.rows };
}

function people(account: Account, rows: readonly FollowerRow[], at: (row: FollowerRow) => number | null, none: string) {
  if (rows.length === 0) return html`<p class="muted">${none}</p>`;
  return html`<ul class="followers">
${rows.map((row) => {
  const time = at(row);
  return html`<li><a href="${followerProfileUrl(account.platform, row.username)}" rel="noreferrer noopener">${row.username}</a> ${when(time === null ? null : new Date(time).toISOString())}</li>`;
})}
</ul>`;
}

function costText(list: FollowerListState): string {
  const { passCost } = list;
  if (passCost.usd === 0) return `One pass reads ${num(passCost.pages)} pages of followers, at no cost.`;
  return `One pass reads ${num(passCost.pages)} pages (${num(passCost.followers)} followers) and costs ${usd(passCost.usd)} on X; about ${usd(passCost.perMonthUsd)} a month at one pass per interval.`;
}

export function followersSection(session: UiSession, account: Account, view: FollowerView): Html {
  const { list } = view;
  const base = accountHref(account.platform, account.username);
  const status = list.overLimit
    ? `Not kept: the account has more than ${num(list.limit)} followers (FOLLOWER_LIST_MAX).`
    : list.enabled
      ? `Kept${list.lastPassAt ? '' : ': the first pass is on its way'}. ${costText(list)}`
      : `Not kept. ${costText(list)}`;
  const toggle =
    session.role !== 'admin' || (list.overLimit && !list.enabled)
      ? ''
      : html`<form method="post" action="${base}/follower-list">
  ${csrfField(session)}
  <input type="hidden" name="on" value="${list.enabled ? '0' : '1'}">
  <button type="submit">${list.enabled ? 'Stop keeping the follower list' : 'Keep the follower list'}</button>
</form>`;
  return html`<section aria-labelledby="followers-came-went">
<h2 id="followers-came-went">Who followed, who left</h2>
<p>${status}${list.lastPassAt ? html` Last pass ${when(list.lastPassAt)}.` : ''}</p>
${toggle}
<h3>New followers</h3>
${people(account, view.gained, (r) => r.gainedAt, 'No new followers in the last 30 days.')}
<h3>Unfollowed</h3>
${people(account, view.lost, (r) => r.goneAt, 'Nobody unfollowed in the last 30 days.')}
</section>`;
}

export function registerFollowerListSwitch(root: FastifyInstance, { followers }: { followers: FollowerDeps }): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/ui/accounts/:platform/:username/follower-list',
    {
      config: { access: 'public', ui: 'admin' },
      schema: { params: AccountParams, body: FormBody({ on: Type.Union([Type.Literal('1'), Type.Literal('0')]) }) },
    },
    async (request, reply) => {
      const ref = refOf(followers.config.defaultPlatform, request.params);
      const on = request.body.on === '1';
      await switchFollowerList(followers, ref, on, sessionOf(request).keyId);
      const done = on ? 'follower-list-on' : 'follower-list-off';
      return reply.redirect(`${accountHref(request.params.platform, request.params.username)}?done=${done}`, 303);
    },
  );
}
