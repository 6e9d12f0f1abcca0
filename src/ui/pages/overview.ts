// Overview: accounts per status and platform, the tracker per platform (due, rate-limit headroom,
// daily read budget, last tick), X's spend and budgets, the latest events (following the log like the Events page), and
// where to start when nothing is tracked yet.
import type { FastifyInstance } from 'fastify';
import { ACCOUNT_STATUSES } from '../../domain/account.ts';
import { PLATFORMS } from '../../domain/platforms.ts';
import type { PlatformLaneStatus } from '../../domain/tracker-status.ts';
import type { AppDeps } from '../../http/deps.ts';
import { createSnapshotCache } from '../../services/snapshot-cache.ts';
import { countAccountsByStatus, readTrackerCounts, type TrackerCounts } from '../../services/tracker-health.ts';
import { num, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout } from '../layout.ts';
import { eventsTable, latestEvents } from './events.ts';
import { sessionOf } from '../session.ts';
import { readSpend, type SpendSummary } from '../../services/spend.ts';

/** Grouped counts over a million accounts take a while: they are reused for this long, at least. */
const COUNTS_TTL_MS = 5_000;

interface Counts {
  byStatus: { platform: string; status: string; n: number }[];
  tracker: TrackerCounts;
  spend: SpendSummary;
}

const usd = (n: number) => `$${n.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** X's spend from the ledger and each budget with what is left; Bluesky is free. */
function spendTable(spend: SpendSummary): Html {
  const amount = (unit: string, n: number) => (unit === 'usd' ? usd(n) : `${num(n)} ${unit}`);
  return html`<div class="table-wrap"><table id="spend">
<caption>X spend (Bluesky is free): ${usd(spend.rateCard.userUsd)} per user read, ${usd(spend.rateCard.postUsd)} per post read, once per UTC day</caption>
<thead><tr><th scope="col"></th><th scope="col" class="n">Users</th><th scope="col" class="n">Posts</th><th scope="col" class="n">Dollars</th></tr></thead>
<tbody><tr><th scope="row">Today (${spend.today.day})</th><td class="n">${num(spend.today.users)}</td><td class="n">${num(spend.today.posts)}</td><td class="n">${usd(spend.today.usd)}</td></tr>
<tr><th scope="row">This month (${spend.month.month})</th><td class="n">${num(spend.month.users)}</td><td class="n">${num(spend.month.posts)}</td><td class="n">${usd(spend.month.usd)}</td></tr>
<tr><th scope="row">Projected to month end</th><td></td><td></td><td class="n">${spend.projectedMonthUsd === null ? '—' : usd(spend.projectedMonthUsd)}</td></tr></tbody></table></div>
<div class="table-wrap"><table id="budgets"><caption>X budgets</caption>
<thead><tr><th scope="col">Budget</th><th scope="col" class="n">Used</th><th scope="col" class="n">Limit</th><th scope="col" class="n">Left</th></tr></thead>
<tbody>${spend.budgets.map(
    (b) =>
      html`<tr><th scope="row">${b.name}</th><td class="n">${amount(b.unit, b.used)}</td><td class="n">${amount(b.unit, b.limit)}</td><td class="n">${amount(b.unit, b.remaining)}</td></tr>`,
  )}</tbody></table></div>`;
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
  return html`<div class="table-wrap"><table id="accounts-by-status">
<caption>Tracked accounts per status and platform</caption>
<thead><tr><th scope="col">Status</th>${PLATFORMS.map((p) => html`<th scope="col">${p}</th>`)}<th scope="col">All</th></tr></thead>
<tbody>${ACCOUNT_STATUSES.map(
    (status) =>
      html`<tr data-status="${status}"><th scope="row">${status.replace('_', ' ')}</th>${PLATFORMS.map((p) => html`<td>${link(p, status, cell(p, status))}</td>`)}<td>${link(null, status, cell(null, status))}</td></tr>`,
  )}</tbody>
<tfoot><tr data-status="all"><th scope="row">All</th>${PLATFORMS.map((p) => html`<td>${num(cell(p, null))}</td>`)}<td>${num(cell(null, null))}</td></tr></tfoot>
</table></div>`;
}

const windowText = (w: PlatformLaneStatus['lookup']) =>
  w.remaining === null ? 'not yet known' : `${num(w.remaining)} of ${num(w.limit)} left`;

function trackerTable(deps: AppDeps, counts: TrackerCounts): Html {
  const status = deps.tracker?.status() ?? null;
  return html`<div class="table-wrap"><table id="tracker">
<caption>The tracker per platform${status ? html`; last tick ${when(status.lastTickAt)}` : ' (not running in this process)'}</caption>
<thead><tr><th scope="col">Platform</th><th scope="col">Due now</th><th scope="col">Lookups</th><th scope="col">Timelines</th><th scope="col">Daily reads</th></tr></thead>
<tbody>${PLATFORMS.map((platform) => {
    const lane = status?.platforms[platform];
    return html`<tr><th scope="row">${platform}</th><td>${num(counts.due[platform] ?? 0)}</td>
<td>${lane ? windowText(lane.lookup) : '—'}</td><td>${lane ? windowText(lane.posts) : '—'}</td>
<td>${lane?.budget ? `${num(lane.budget.used)} of ${num(lane.budget.limit)}` : '—'}</td></tr>`;
  })}</tbody></table></div>
<p>${counts.trackers.filter((t) => t.stoppedAt === null).length} tracker process(es) heard of in the last hour.</p>`;
}

export function registerOverview(app: FastifyInstance, deps: AppDeps): void {
  // Stale while revalidating: past its age the last counts are shown while new ones are read in
  // the background, so only the first Overview after a start waits for the grouped count.
  const countsCache = createSnapshotCache(
    async (): Promise<Counts> => {
      const now = deps.clock.now();
      const [byStatus, tracker, spend] = await Promise.all([
        countAccountsByStatus(deps.store),
        readTrackerCounts(deps.store, now, now - 3_600_000),
        readSpend(deps.store, deps.config, now),
      ]);
      return { byStatus, tracker, spend };
    },
    COUNTS_TTL_MS,
    deps.clock,
    { onStaleError: (error) => app.log.warn({ err: error }, 'overview counts failed') },
  );

  app.get('/ui/', { config: { access: 'public', ui: 'app' } }, async (request, reply) => {
    const session = sessionOf(request);
    const [counts, latest] = await Promise.all([countsCache.get(), latestEvents(deps, 10)]);
    const total = counts.byStatus.reduce((sum, r) => sum + r.n, 0);
    const empty = html`<section class="empty"><h2>No accounts yet</h2>
<p>perch tracks the accounts you register.${session.role === 'admin' ? html` <a href="/ui/import">Import a CSV file of usernames</a> to start.` : ' Ask an administrator to import some.'}</p></section>`;
    const body = html`<h1>Overview</h1>
${total === 0 ? empty : ''}
<section><h2>Accounts</h2>${countsTable(counts.byStatus)}<p class="hint">Counts are refreshed every few seconds.</p></section>
<section><h2>Tracker</h2>${trackerTable(deps, counts.tracker)}</section>
<section><h2>Spend</h2>${spendTable(counts.spend)}</section>
<section><h2>Latest events</h2>${eventsTable(latest.events, latest.position)}<p><a href="/ui/events">All events, live</a></p></section>`;
    return reply
      .type('text/html; charset=utf-8')
      .send(layout({ title: 'Overview', session, section: 'overview', body, scripts: ['events.js'] }).text);
  });
}
