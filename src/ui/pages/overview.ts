// Overview: accounts per status and platform, the tracker per platform (due, rate-limit headroom,
// daily read budget, last tick), X's spend and budgets, the top movers, total followers over time, the latest events (following the log like the Events page), and
// where to start when nothing is tracked yet.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Store } from '../../services/context.ts';
import { ACCOUNT_STATUSES } from '../../domain/account.ts';
import { PLATFORMS } from '../../domain/platforms.ts';
import type { PlatformLaneStatus, TrackerView } from '../../domain/tracker-status.ts';
import { createSnapshotCache } from '../../services/snapshot-cache.ts';
import { countAccountsByStatus, readTrackerCounts, type TrackerCounts } from '../../services/tracker-health.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { num, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { eventsTable, latestEvents } from './events.ts';
import { sessionOf } from '../session.ts';
import { readSpend, type SpendSummary } from '../../services/spend.ts';
import { spendTables } from './overview-spend.ts';
import { topMovers } from './overview-movers.ts';
import { OverviewQuery, totalsSection } from './overview-totals.ts';
import type { ServiceDeps } from '../../services/context.ts';

/** The counts (accounts from the kept counts, the tracker's due accounts, spend) are reused for this long, at least. */
const COUNTS_TTL_MS = 5_000;

interface Counts {
  byStatus: { platform: string; status: string; n: number }[];
  tracker: TrackerCounts;
  spend: SpendSummary;
}

function countsTable(rows: Counts['byStatus']): Html {
  const cell = (platform: string | null, status: string | null) =>
    rows
      .filter((r) => (platform === null || r.platform === platform) && (status === null || r.status === status))
      .reduce((sum, r) => sum + r.n, 0);
  const link = (platform: string | null, status: string, n: number) => {
    const query = new URLSearchParams({ ...(platform ? { platform } : {}), status }).toString();
    return n === 0 ? html`0` : html`<a href="/ui/accounts?${query}">${num(n)}</a>`;
  };
  const statusRow = (status: (typeof ACCOUNT_STATUSES)[number]) => html`<tr data-status="${status}">
  <th scope="row">${status.replace('_', ' ')}</th>
  ${PLATFORMS.map((p) => html`<td>${link(p, status, cell(p, status))}</td>`)}
  <td>${link(null, status, cell(null, status))}</td>
</tr>`;
  return html`<div class="table-wrap">
<table id="accounts-by-status">
<caption>Tracked accounts per status and platform</caption>
<thead>
<tr>
  <th scope="col">Status</th>
  ${PLATFORMS.map((p) => html`<th scope="col">${p}</th>`)}
  <th scope="col">All</th>
</tr>
</thead>
<tbody>
${ACCOUNT_STATUSES.map(statusRow)}
</tbody>
<tfoot>
<tr data-status="all">
  <th scope="row">All</th>
  ${PLATFORMS.map((p) => html`<td>${num(cell(p, null))}</td>`)}
  <td>${num(cell(null, null))}</td>
</tr>
</tfoot>
</table>
</div>`;
}

const windowText = (w: PlatformLaneStatus['lookup']) =>
  w.remaining === null ? 'not yet known' : `${num(w.remaining)} of ${num(w.limit)} left`;

function trackerTable(tracker: TrackerView | null, counts: TrackerCounts): Html {
  const status = tracker?.status() ?? null;
  const laneRow = (platform: (typeof PLATFORMS)[number]) => {
    const lane = status?.platforms[platform];
    return html`<tr>
  <th scope="row">${platform}</th>
  <td>${num(counts.due[platform] ?? 0)}</td>
  <td>${lane ? windowText(lane.lookup) : '—'}</td>
  <td>${lane ? windowText(lane.posts) : '—'}</td>
  <td>${lane?.budget ? `${num(lane.budget.used)} of ${num(lane.budget.limit)}` : '—'}</td>
</tr>`;
  };
  const running = status ? html`; last tick ${when(status.lastTickAt)}` : ' (not running in this process)';
  return html`<div class="table-wrap">
<table id="tracker">
<caption>The tracker per platform${running}</caption>
<thead>
<tr>
  <th scope="col">Platform</th>
  <th scope="col">Due now</th>
  <th scope="col">Lookups</th>
  <th scope="col">Timelines</th>
  <th scope="col">Daily reads</th>
</tr>
</thead>
<tbody>
${PLATFORMS.map(laneRow)}
</tbody>
</table>
</div>
<p>${counts.trackers.filter((t) => t.stoppedAt === null).length} tracker process(es) heard of in the last hour.</p>`;
}

function emptySection(session: UiSession): Html {
  const start =
    session.role === 'admin'
      ? html` <a href="/ui/import">Import a CSV file of usernames</a> to start.`
      : ' Ask an administrator to import some.';
  return html`<section class="empty">
<h2>No accounts yet</h2>
<p>perch tracks the accounts you register.${start}</p>
</section>`;
}

export function registerOverview(
  app: FastifyInstance,
  {
    store,
    clock,
    config,
    tracker,
    accounts,
  }: { store: Store; clock: Clock; config: Config; tracker: TrackerView | null; accounts: ServiceDeps },
): void {
  // Stale while revalidating: past its age the last counts are shown while new ones are read in
  // the background, so only the first Overview after a start waits for the grouped count.
  const countsCache = createSnapshotCache(
    async (): Promise<Counts> => {
      const now = clock.now();
      const [byStatus, trackerCounts, spend] = await Promise.all([
        countAccountsByStatus(store),
        readTrackerCounts(store, now, now - 3_600_000),
        readSpend(store, config, now),
      ]);
      return { byStatus, tracker: trackerCounts, spend };
    },
    COUNTS_TTL_MS,
    clock,
    { onStaleError: (error) => app.log.warn({ err: error }, 'overview counts failed') },
  );

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'app' }, schema: { querystring: OverviewQuery } } as const;
  typed.get('/ui/', route, async (request, reply) => {
    const session = sessionOf(request);
    const [counts, latest, movers, totals] = await Promise.all([
      countsCache.get(),
      latestEvents(store, 10),
      topMovers(accounts),
      totalsSection(accounts, request.query.tag ?? '', request.query.range ?? '30d'),
    ]);
    const total = counts.byStatus.reduce((sum, r) => sum + r.n, 0);
    const body = html`<h1>Overview</h1>
${total === 0 ? emptySection(session) : ''}
<section>
<h2>Accounts</h2>
${countsTable(counts.byStatus)}
<p class="hint">Counts are refreshed every few seconds.</p>
</section>
<section>
<h2>Tracker</h2>
${trackerTable(tracker, counts.tracker)}
</section>
<section>
<h2>Spend</h2>
${session.role === 'admin' ? spendTables(counts.spend) : html`<p class="hint" id="spend-hidden">X's spend and budgets are shown to administrators.</p>`}
</section>
<section>
<h2>Top movers</h2>
${movers}
</section>
<section>
<h2>Followers over time</h2>
${totals}
</section>
<section>
<h2>Latest events</h2>
${eventsTable(latest.events, latest.position)}
<p><a href="/ui/events">All events, live</a></p>
</section>`;
    return sendPage(
      reply,
      layout({
        title: 'Overview',
        session,
        section: 'overview',
        body,
        scripts: ['events.js', 'uplot.js', 'charts.js'],
        styles: ['uplot.css'],
      }),
    );
  });
}
