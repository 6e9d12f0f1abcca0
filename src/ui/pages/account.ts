// One account: profile, status and renames, the followers chart over a chosen range, the analysis
// (activity by hour, engagement, top entities, sentiment), recent posts with their metrics, the
// history as CSV, and (for admin keys) the actions.
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../domain/account.ts';
import type { AccountAnalysis } from '../../domain/analysis.ts';
import { csvRow } from '../../domain/csv-export.ts';
import type { AppDeps } from '../../http/deps.ts';
import { historyExport, historyPage } from '../../services/account-history.ts';
import { listAccountPosts, type PostView } from '../../services/account-posts.ts';
import type { NamedRef } from '../../services/account-refs.ts';
import { getAccount } from '../../services/accounts.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { barChart, timeChart } from '../charts.ts';
import { accountHref, num, signed, statusBadge, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, notice } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { accountActions, NOTICES } from './account-actions.ts';
import { refOf } from './account-ref.ts';

export const RANGES = { '7d': 7, '30d': 30, '90d': 90, all: null } as const;
export type Range = keyof typeof RANGES;
/** Points drawn at most: ten years of daily points, or a year of hourly ones. */
export const CHART_MAX_POINTS = 10_000;

export function rangeOf(value: unknown): Range {
  return typeof value === 'string' && value in RANGES ? (value as Range) : '30d';
}

/** Followers over the range, for one account: epoch seconds and values. */
export async function followerSeries(deps: AppDeps, ref: NamedRef, range: Range, label: string) {
  const days = RANGES[range];
  const from = days === null ? undefined : deps.clock.now() - days * 86_400_000;
  const page = await historyPage(deps, ref, from === undefined ? {} : { from }, CHART_MAX_POINTS);
  return {
    label,
    times: page.points.map((p) => Math.floor(p.observedAt / 1000)),
    values: page.points.map((p) => p.followers),
  };
}

const list = <T>(items: T[], show: (item: T) => Html, empty: string) =>
  items.length === 0
    ? html`<p class="hint">${empty}</p>`
    : html`<ol class="top">${items.map((i) => html`<li>${show(i)}</li>`)}</ol>`;

function analysisSection(a: AccountAnalysis | null): Html {
  if (!a) return html`<p class="hint">The analysis appears after the first check.</p>`;
  const hours = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
  const { engagement: e, content: c } = a;
  return html`<div class="grid">
<section><h3>Activity by hour</h3>${barChart('activity-chart', `Own posts per UTC hour over 30 days (${a.activity.postsPerDay7d} a day over 7 days)`, hours, a.activity.activeHoursUtc)}</section>
<section><h3>Engagement</h3><dl class="figures">
<dt>Engagement rate</dt><dd>${e.engagementRate === null ? '—' : `${num(e.engagementRate)} %`}</dd>
<dt>Likes per post</dt><dd>${num(e.avgLikes)}</dd><dt>Reposts per post</dt><dd>${num(e.avgReposts)}</dd>
<dt>Replies per post</dt><dd>${num(e.avgReplies)}</dd><dt>Posts considered</dt><dd>${num(e.postsConsidered)}</dd></dl></section>
<section><h3>Sentiment</h3><dl class="figures"><dt>Mean</dt><dd>${num(c.sentiment.mean)}</dd>
<dt>Positive</dt><dd>${c.sentiment.positiveShare === null ? '—' : `${num(c.sentiment.positiveShare * 100)} %`}</dd>
<dt>Negative</dt><dd>${c.sentiment.negativeShare === null ? '—' : `${num(c.sentiment.negativeShare * 100)} %`}</dd>
<dt>Posts scored</dt><dd>${num(c.sentiment.postsScored)}</dd></dl></section>
<section><h3>Top hashtags</h3>${list(c.topHashtags, (t) => html`#${t.tag} <span class="hint">${t.count}</span>`, 'None in 30 days.')}</section>
<section><h3>Top mentions</h3>${list(c.topMentions, (t) => html`@${t.username} <span class="hint">${t.count}</span>`, 'None in 30 days.')}</section>
<section><h3>Top domains</h3>${list(c.topDomains, (t) => html`${t.domain} <span class="hint">${t.count}</span>`, 'None in 30 days.')}</section>
</div>`;
}

function postsSection(posts: PostView[]): Html {
  if (posts.length === 0) return html`<p class="hint">No posts read yet.</p>`;
  return html`<ul class="posts">${posts.map(
    (p) => html`<li><p>${p.isRepost ? html`<span class="badge">repost</span> ` : ''}${p.text}</p>
<p class="meta">${when(p.createdAt)} · ${num(p.metrics.likes)} likes · ${num(p.metrics.reposts)} reposts · ${num(p.metrics.replies)} replies · ${num(p.metrics.quotes)} quotes${p.url ? html` · <a href="${p.url}" rel="noreferrer noopener">open</a>` : ''}</p></li>`,
  )}</ul>`;
}

function profileSection(account: Account, remoteImages: boolean): Html {
  const p = account.profile;
  const m = account.metrics;
  return html`<div class="profile">
${remoteImages && p?.profileImageUrl?.startsWith('https://') ? html`<img src="${p.profileImageUrl}" alt="" width="64" height="64" referrerpolicy="no-referrer">` : ''}
<div><p>${p?.displayName ?? ''} ${statusBadge(account.status)}${account.statusReason ? html` <span class="hint">${account.statusReason}</span>` : ''}</p>
${p?.description ? html`<p>${p.description}</p>` : ''}
<dl class="figures"><dt>Followers</dt><dd>${num(m?.followers)}</dd><dt>Following</dt><dd>${num(m?.following)}</dd><dt>Posts</dt><dd>${num(m?.posts)}</dd>
<dt>Tracked since</dt><dd>${when(account.tracking.trackedSince)}</dd><dt>Last checked</dt><dd>${when(account.tracking.lastCheckedAt)}</dd>
<dt>Tags</dt><dd>${account.tags.length ? account.tags.join(', ') : '—'}</dd></dl>
${account.renames.length ? html`<p>Renamed: ${account.renames.map((r) => html`${r.from} → ${r.to} (${when(r.at)}) `)}</p>` : ''}</div></div>`;
}

export function accountPage(
  deps: AppDeps,
  session: UiSession,
  account: Account,
  chart: Html,
  range: Range,
  posts: PostView[],
  done: string | null,
): Html {
  const href = accountHref(account.platform, account.username);
  const a = account.analysis as AccountAnalysis | null;
  const body = html`<p class="crumbs"><a href="/ui/accounts">Accounts</a> › ${account.platform}</p>
<h1>${account.username}</h1>
${notice('ok', done)}
${profileSection(account, deps.config.uiRemoteImages)}
${session.role === 'admin' ? accountActions(session, account) : ''}
<section><h2>Followers</h2>
<nav class="ranges" aria-label="Range">${Object.keys(RANGES).map((r) => html`<a href="${href}?range=${r}"${r === range ? html` aria-current="true"` : ''}>${r}</a>`)}</nav>
${chart}
<p>Change: ${signed(a?.followers.change1d)} in a day, ${signed(a?.followers.change7d)} in 7 days, ${signed(a?.followers.change30d)} in 30 days. <a href="${href}/history.csv" download>Download the history (CSV)</a></p>
</section>
<section><h2>Analysis</h2>${analysisSection(a)}</section>
<section><h2>Recent posts</h2>${postsSection(posts)}</section>`;
  return layout({
    title: account.username,
    session,
    section: 'accounts',
    body,
    scripts: ['uplot.js', 'charts.js'],
    styles: ['uplot.css'],
  });
}

export function registerAccountPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/ui/accounts/:platform/:username', { config: { access: 'public', ui: 'app' } }, async (request, reply) => {
    const session = sessionOf(request);
    const ref = refOf(deps, request.params);
    const query = request.query as Record<string, unknown>;
    const range = rangeOf(query.range);
    const account = await getAccount(deps, ref);
    const [series, posts] = await Promise.all([
      followerSeries(deps, ref, range, account.username),
      listAccountPosts(deps, ref, 20),
    ]);
    const label = `Followers of ${account.username} over ${range === 'all' ? 'all the history' : `the last ${range.replace('d', ' days')}`}: ${series.values.length} points${series.values.length ? `, from ${num(series.values[0])} to ${num(series.values.at(-1))}` : ''}`;
    const chart = timeChart({ id: 'followers-chart', label, series: [series], mode: 'absolute' });
    const done = typeof query.done === 'string' ? (NOTICES[query.done] ?? null) : null;
    return reply
      .type('text/html; charset=utf-8')
      .send(accountPage(deps, session, account, chart, range, posts.data, done).text);
  });

  app.get(
    '/ui/accounts/:platform/:username/history.csv',
    { config: { access: 'public', ui: 'app' } },
    async (request, reply) => {
      const exported = await historyExport(deps, refOf(deps, request.params), {}, 100_000, 10_000);
      const lines = [csvRow(['observed_at', 'username', 'display_name', 'followers', 'following', 'posts', 'listed'])];
      for (const p of exported.points)
        lines.push(
          csvRow([
            new Date(p.observedAt).toISOString(),
            exported.username,
            exported.displayName,
            p.followers,
            p.following,
            p.posts,
            p.listed,
          ]),
        );
      const filename = `${exported.platform}-${exported.username}-history.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(lines.join(''));
    },
  );
}
