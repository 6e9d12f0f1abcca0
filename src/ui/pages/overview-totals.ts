// The Overview's followers-over-time chart: the total followers of all tracked accounts, or of the
// accounts of one tag, day by day over the chosen window (services/movers.ts keeps the totals).
import { Type } from '@sinclair/typebox';
import { followerTotals, trackedTags } from '../../services/movers.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { timeChart } from '../charts.ts';
import { num } from '../format.ts';
import { Query, Text } from '../forms.ts';
import { html, type Html } from '../html.ts';
import { chartWindow, RANGES, RangeSchema, rangeText, type Range } from './account.ts';

/** `?tag=` (empty for all accounts) and `?range=` of the Overview. */
export const OverviewQuery = Query({ tag: Type.Optional(Text(100)), range: Type.Optional(RangeSchema) });

const selected = (on: boolean) => (on ? html` selected` : '');

function totalsForm(tags: readonly string[], tag: string, range: Range): Html {
  return html`<form class="filters" method="get" action="/ui/" id="totals-form">
  <div>
    <label for="totals-tag">Accounts</label>
    <select id="totals-tag" name="tag">
      <option value=""${selected(tag === '')}>All tracked accounts</option>
      ${tags.map((t) => html`<option value="${t}"${selected(t === tag)}>Tag ${t}</option>`)}
    </select>
  </div>
  <div>
    <label for="totals-range">Range</label>
    <select id="totals-range" name="range">
      ${Object.keys(RANGES).map((r) => html`<option value="${r}"${selected(r === range)}>${r}</option>`)}
    </select>
  </div>
  <div class="actions">
    <button type="submit">Show</button>
  </div>
</form>`;
}

/** The form and the chart of total followers for `tag` ('' for all accounts) over `range`. */
export async function totalsSection(accounts: ServiceDeps, tag: string, range: Range): Promise<Html> {
  const now = accounts.clock.now();
  const days = RANGES[range];
  const from = days === null ? 0 : now - days * 86_400_000;
  const [tags, points] = await Promise.all([trackedTags(accounts), followerTotals(accounts, tag || null, from)]);
  const whose = tag === '' ? 'all tracked accounts' : `the accounts tagged ${tag}`;
  const series = {
    label: tag === '' ? 'All tracked accounts' : `Tag ${tag}`,
    times: points.map((p) => Math.max(Math.floor(p.at / 1000), Math.floor(from / 1000))),
    values: points.map((p) => p.total),
  };
  // Today's total stands until now: the line runs to the end of the window.
  const last = points.at(-1);
  if (last && series.times.at(-1)! < Math.floor(now / 1000)) {
    series.times.push(Math.floor(now / 1000));
    series.values.push(last.total);
  }
  const span = last ? `, ${num(last.total)} now` : '';
  const label = `Total followers of ${whose} over ${rangeText(range)}${span}`;
  const window = chartWindow(range, now, [series]);
  return html`${totalsForm(tags, tag, range)}
${timeChart({ id: 'totals-chart', label, series: [series], mode: 'absolute', window })}`;
}
