// The parts of an account's page that show what perch knows of it: the profile with its figures,
// the analysis (activity by hour, engagement, sentiment, top entities) and the recent posts.
import type { Account } from '../../domain/account.ts';
import type { AccountAnalysis } from '../../domain/analysis.ts';
import type { PostView } from '../../services/account-posts.ts';
import { barChart } from '../charts.ts';
import { num, statusBadge, when } from '../format.ts';
import { html, type Html } from '../html.ts';

const figure = (term: string, value: Html | string) => html`<dt>${term}</dt>
  <dd>${value}</dd>`;

const percent = (share: number | null) => (share === null ? '—' : `${num(share * 100)} %`);

const list = <T>(items: T[], show: (item: T) => Html, empty: string) =>
  items.length === 0
    ? html`<p class="hint">${empty}</p>`
    : html`<ol class="ranked">
  ${items.map((i) => html`<li>${show(i)}</li>`)}
</ol>`;

export function analysisSection(a: AccountAnalysis | null): Html {
  if (!a) return html`<p class="hint">The analysis appears after the first check.</p>`;
  const hours = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
  const { engagement: e, content: c } = a;
  const activity = `Own posts per UTC hour over 30 days (${a.activity.postsPerDay7d} a day over 7 days)`;
  return html`<div class="grid">
<section>
<h3>Activity by hour</h3>
${barChart('activity-chart', activity, hours, a.activity.activeHoursUtc)}
</section>
<section>
<h3>Engagement</h3>
<dl class="figures">
  ${figure('Engagement rate', e.engagementRate === null ? '—' : `${num(e.engagementRate)} %`)}
  ${figure('Likes per post', num(e.avgLikes))}
  ${figure('Reposts per post', num(e.avgReposts))}
  ${figure('Replies per post', num(e.avgReplies))}
  ${figure('Posts considered', num(e.postsConsidered))}
</dl>
</section>
<section>
<h3>Sentiment</h3>
<dl class="figures">
  ${figure('Mean', num(c.sentiment.mean))}
  ${figure('Positive', percent(c.sentiment.positiveShare))}
  ${figure('Negative', percent(c.sentiment.negativeShare))}
  ${figure('Posts scored', num(c.sentiment.postsScored))}
</dl>
</section>
<section>
<h3>Top hashtags</h3>
${list(c.topHashtags, (t) => html`<span class="name">#${t.tag}</span> <span class="count">${num(t.count)}</span>`, 'None in 30 days.')}
</section>
<section>
<h3>Top mentions</h3>
${list(c.topMentions, (t) => html`<span class="name">@${t.username}</span> <span class="count">${num(t.count)}</span>`, 'None in 30 days.')}
</section>
<section>
<h3>Top domains</h3>
${list(c.topDomains, (t) => html`<span class="name">${t.domain}</span> <span class="count">${num(t.count)}</span>`, 'None in 30 days.')}
</section>
</div>`;
}

function postItem(p: PostView): Html {
  const link = p.url ? html` · <a href="${p.url}" rel="noreferrer noopener">open</a>` : '';
  const m = p.metrics;
  return html`<li>
  <p>${p.isRepost ? html`<span class="badge">repost</span> ` : ''}${p.text}</p>
  <p class="meta">${when(p.createdAt)} · ${num(m.likes)} likes · ${num(m.reposts)} reposts · ${num(m.replies)} replies · ${num(m.quotes)} quotes${link}</p>
</li>`;
}

export function postsSection(posts: PostView[]): Html {
  if (posts.length === 0) return html`<p class="hint">No posts read yet.</p>`;
  return html`<ul class="posts">
${posts.map(postItem)}
</ul>`;
}

export function profileSection(account: Account, remoteImages: boolean): Html {
  const p = account.profile;
  const m = account.metrics;
  const image =
    remoteImages && p?.profileImageUrl?.startsWith('https://')
      ? html`<img src="${p.profileImageUrl}" alt="" width="64" height="64" referrerpolicy="no-referrer">`
      : '';
  const reason = account.statusReason ? html` <span class="hint">${account.statusReason}</span>` : '';
  const renames = account.renames.map((r) => html`${r.from} → ${r.to} (${when(r.at)}) `);
  return html`<div class="profile">
${image}
<div>
<p>${p?.displayName ?? ''} ${statusBadge(account.status)}${reason}</p>
${p?.description ? html`<p>${p.description}</p>` : ''}
<dl class="figures">
  ${figure('Followers', num(m?.followers))}
  ${figure('Following', num(m?.following))}
  ${figure('Posts', num(m?.posts))}
  ${figure('Tracked since', when(account.tracking.trackedSince))}
  ${figure('Last checked', when(account.tracking.lastCheckedAt))}
  ${figure('Tags', account.tags.length ? account.tags.join(', ') : '—')}
</dl>
${account.renames.length ? html`<p>Renamed: ${renames}</p>` : ''}
</div>
</div>`;
}
