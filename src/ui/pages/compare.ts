// Compare: up to 5 accounts' followers on one chart, as absolute numbers or % change from the
// first point of the range.
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import type { AppDeps } from '../../http/deps.ts';
import { accountRef } from '../../services/account-refs.ts';
import { getAccounts } from '../../services/accounts.ts';
import { timeChart } from '../charts.ts';
import { html, type Html } from '../html.ts';
import { layout, notice } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { followerSeries, rangeOf, RANGES } from './account.ts';

export const MAX_COMPARED = 5;

export function registerComparePage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/ui/compare', { config: { access: 'public', ui: 'app' } }, async (request, reply) => {
    const session = sessionOf(request);
    const query = request.query as Record<string, unknown>;
    const raw = typeof query.accounts === 'string' ? query.accounts.slice(0, 1_000) : '';
    const names = [...new Set(raw.split(/[\s,]+/).filter((n) => n !== ''))];
    const mode = query.mode === 'percent' ? 'percent' : 'absolute';
    const range = rangeOf(query.range);
    let chart: Html = html`<p class="hint">Name up to ${MAX_COMPARED} accounts, separated by commas (for example <code>jack, alice.bsky.social</code>).</p>`;
    let error: string | null = null;
    try {
      if (names.length > MAX_COMPARED)
        throw new PerchError(
          'validation_failed',
          `Compare at most ${MAX_COMPARED} accounts at once (${names.length} given).`,
        );
      if (names.length > 0) {
        const found = await getAccounts(deps, names, undefined);
        if (found.missing.length > 0) error = `Not tracked: ${found.missing.join(', ')}.`;
        const series = await Promise.all(
          found.data.map((a) =>
            followerSeries(
              deps,
              accountRef(a.username, a.platform, deps.config.defaultPlatform),
              range,
              `${a.username} (${a.platform})`,
            ),
          ),
        );
        const label = `Followers of ${series.map((s) => s.label).join(', ')}${mode === 'percent' ? ' as % change' : ''} over ${range === 'all' ? 'all the history' : `the last ${range.replace('d', ' days')}`}`;
        if (series.length > 0) chart = timeChart({ id: 'compare-chart', label, series, mode });
      }
    } catch (thrown) {
      if (!(thrown instanceof PerchError)) throw thrown;
      error = thrown.detail;
    }
    const body = html`<h1>Compare</h1>
<form class="filters" method="get" action="/ui/compare">
  <div class="wide"><label for="accounts">Accounts</label><input id="accounts" name="accounts" value="${raw}" placeholder="jack, alice.bsky.social" autocomplete="off"></div>
  <div><label for="range">Range</label><select id="range" name="range">${Object.keys(RANGES).map((r) => html`<option value="${r}"${r === range ? html` selected` : ''}>${r}</option>`)}</select></div>
  <fieldset><legend>Show</legend>
    <label><input type="radio" name="mode" value="absolute"${mode === 'absolute' ? html` checked` : ''}> Followers</label>
    <label><input type="radio" name="mode" value="percent"${mode === 'percent' ? html` checked` : ''}> % change</label></fieldset>
  <div class="actions"><button type="submit">Compare</button></div>
</form>
${notice('error', error)}
${chart}`;
    return reply.type('text/html; charset=utf-8').send(
      layout({
        title: 'Compare',
        session,
        section: 'compare',
        body,
        scripts: ['uplot.js', 'charts.js'],
        styles: ['uplot.css'],
      }).text,
    );
  });
}
