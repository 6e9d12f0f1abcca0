// One account: profile, status and renames, the followers chart over a chosen range, the analysis
// (activity by hour, engagement, top entities, sentiment), who followed and who left, recent posts
// with their metrics, the history as CSV, and (for admin keys) the actions.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../domain/account.ts';
import type { AccountAnalysis } from '../../domain/analysis.ts';
import { csvRow } from '../../domain/csv-export.ts';
import { literals } from '../../http/schemas.ts';
import { historyExport, historyPage } from '../../services/account-history.ts';
import { listAccountPosts, type PostView } from '../../services/account-posts.ts';
import type { NamedRef } from '../../services/account-refs.ts';
import { getAccount } from '../../services/accounts.ts';
import type { ServiceDeps } from '../../services/context.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { timeChart } from '../charts.ts';
import { AccountParams, Query, Text } from '../forms.ts';
import { accountHref, num, signed } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { accountActions, NOTICES } from './account-actions.ts';
import { refOf } from './account-ref.ts';
import { analysisSection, postsSection, profileSection } from './account-sections.ts';
import { accountTimeline } from './account-timeline.ts';
import { followersSection, followerView, type FollowerView } from './account-followers.ts';
import type { FollowerDeps } from '../../services/followers.ts';

export const RANGES = { '7d': 7, '30d': 30, '90d': 90, all: null } as const;
export type Range = keyof typeof RANGES;
/** The range a page asks for (`?range=`), 30 days unless said. */
export const RangeSchema = literals(['7d', '30d', '90d', 'all'] as const);
/** Points drawn at most: ten years of daily points, or a year of hourly ones. */
export const CHART_MAX_POINTS = 10_000;

/** What the range is called in a chart's name. */
export const rangeText = (range: Range) =>
  range === 'all' ? 'all the history' : `the last ${range.replace('d', ' days')}`;

/**
 * The span a chart of `range` covers, in epoch seconds: the last 7/30/90 days ending now, or for
 * "all" from the first sample (a day at least). Never inferred from the points alone: a
 * single point would otherwise stretch the axis over years.
 */
export function chartWindow(range: Range, now: number, series: readonly { times: readonly number[] }[]) {
  const to = Math.floor(now / 1000);
  const days = RANGES[range];
  if (days !== null) return { from: to - days * 86_400, to };
  const firsts = series.map((s) => s.times[0]).filter((t): t is number => t !== undefined);
  // At least a day, so a first sample taken a moment ago does not make an axis of no width.
  return { from: Math.min(to - 86_400, ...firsts), to };
}

/** Followers over the range, for one account: epoch seconds and values. */
export async function followerSeries(accounts: ServiceDeps, ref: NamedRef, range: Range, label: string) {
  const days = RANGES[range];
  const from = days === null ? undefined : accounts.clock.now() - days * 86_400_000;
  const page = await historyPage(accounts, ref, from === undefined ? {} : { from }, CHART_MAX_POINTS);
  return {
    label,
    times: page.points.map((p) => Math.floor(p.observedAt / 1000)),
    values: page.points.map((p) => p.followers),
  };
}

interface AccountView {
  account: Account;
  chart: Html;
  range: Range;
  posts: PostView[];
  timeline: Html;
  followers: FollowerView;
  done: string | null;
}

function accountPage(session: UiSession, view: AccountView, remoteImages: boolean): Html {
  const { account, range } = view;
  const href = accountHref(account.platform, account.username);
  const a = account.analysis as AccountAnalysis | null;
  const rangeLink = (r: string) =>
    html`<a href="${href}?range=${r}"${r === range ? html` aria-current="true"` : ''}>${r}</a>`;
  const body = html`<p class="crumbs"><a href="/ui/accounts">Accounts</a> › ${account.platform}</p>
<h1>${account.username}</h1>
${notice('ok', view.done)}
${profileSection(account, remoteImages)}
${session.role === 'admin' ? accountActions(session, account) : ''}
<section>
<h2>Followers</h2>
<nav class="ranges" aria-label="Range">
  ${Object.keys(RANGES).map(rangeLink)}
</nav>
${view.chart}
<p>Change: ${signed(a?.followers.change1d)} in a day, ${signed(a?.followers.change7d)} in 7 days, ${signed(a?.followers.change30d)} in 30 days. <a href="${href}/history.csv" download>Download the history (CSV)</a></p>
</section>
${followersSection(session, account, view.followers)}
<section>
<h2>Analysis</h2>
${analysisSection(a)}
</section>
<section>
<h2>Recent posts</h2>
${postsSection(view.posts)}
</section>
<section>
<h2>Timeline</h2>
${view.timeline}
</section>`;
  return layout({
    title: account.username,
    session,
    section: 'accounts',
    body,
    scripts: ['uplot.js', 'charts.js'],
    styles: ['uplot.css'],
  });
}

const PageQuery = Query({ range: Type.Optional(RangeSchema), done: Type.Optional(Text(50)) });

export function registerAccountPage(
  root: FastifyInstance,
  { accounts, followers, remoteImages }: { accounts: ServiceDeps; followers: FollowerDeps; remoteImages: boolean },
): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'app' } } as const;
  const refIn = (params: { platform: string; username: string }) => refOf(accounts.config.defaultPlatform, params);

  app.get(
    '/ui/accounts/:platform/:username',
    { ...route, schema: { params: AccountParams, querystring: PageQuery } },
    async (request, reply) => {
      const ref = refIn(request.params);
      const range = request.query.range ?? '30d';
      const account = await getAccount(accounts, ref);
      const [series, posts, timeline, followerList] = await Promise.all([
        followerSeries(accounts, ref, range, account.username),
        listAccountPosts(accounts, ref, 20),
        accountTimeline(accounts, account),
        followerView(followers, ref),
      ]);
      const { values } = series;
      const span = values.length ? `, from ${num(values[0])} to ${num(values.at(-1))}` : '';
      const label = `Followers of ${account.username} over ${rangeText(range)}: ${values.length} points${span}`;
      const window = chartWindow(range, accounts.clock.now(), [series]);
      const chart = timeChart({ id: 'followers-chart', label, series: [series], mode: 'absolute', window });
      const done = request.query.done === undefined ? null : (NOTICES[request.query.done] ?? null);
      const view = { account, chart, range, posts: posts.data, timeline, followers: followerList, done };
      return sendPage(reply, accountPage(sessionOf(request), view, remoteImages));
    },
  );

  app.get(
    '/ui/accounts/:platform/:username/history.csv',
    { ...route, schema: { params: AccountParams } },
    async (request, reply) => {
      const exported = await historyExport(accounts, refIn(request.params), {}, 100_000, 10_000);
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
