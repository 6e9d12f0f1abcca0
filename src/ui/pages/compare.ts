// Compare: up to 5 accounts' followers on one chart, as absolute numbers or % change from the
// first point of the range.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { literals } from '../../http/schemas.ts';
import { accountRef } from '../../services/account-refs.ts';
import { getAccounts } from '../../services/accounts.ts';
import type { ServiceDeps } from '../../services/context.ts';
import type { AssetName } from '../assets.ts';
import { timeChart } from '../charts.ts';
import { Query, Text } from '../forms.ts';
import { html, type Html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { chartWindow, followerSeries, RANGES, RangeSchema, rangeText, type Range } from './account.ts';

export const MAX_COMPARED = 5;

const CompareQuery = Query({
  accounts: Type.Optional(Text(1_000)),
  range: Type.Optional(RangeSchema),
  mode: Type.Optional(literals(['absolute', 'percent'] as const)),
});

const checked = (on: boolean) => (on ? html` checked` : '');

function compareForm(raw: string, range: Range, mode: 'absolute' | 'percent'): Html {
  const rangeOption = (r: string) => html`<option value="${r}"${r === range ? html` selected` : ''}>${r}</option>`;
  return html`<form class="filters" method="get" action="/ui/compare">
  <div class="wide">
    <label for="accounts">Accounts</label>
    <input id="accounts" name="accounts" value="${raw}" placeholder="jack, alice.bsky.social" autocomplete="off">
  </div>
  <div>
    <label for="range">Range</label>
    <select id="range" name="range">
      ${Object.keys(RANGES).map(rangeOption)}
    </select>
  </div>
  <fieldset>
    <legend>Show</legend>
    <label>
      <input type="radio" name="mode" value="absolute"${checked(mode === 'absolute')}>
      Followers
    </label>
    <label>
      <input type="radio" name="mode" value="percent"${checked(mode === 'percent')}>
      % change
    </label>
  </fieldset>
  <div class="actions">
    <button type="submit">Compare</button>
  </div>
</form>`;
}

export function registerComparePage(root: FastifyInstance, accounts: ServiceDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/ui/compare',
    { config: { access: 'public', ui: 'app' }, schema: { querystring: CompareQuery } },
    async (request, reply) => {
      const session = sessionOf(request);
      const raw = request.query.accounts ?? '';
      const names = [...new Set(raw.split(/[\s,]+/).filter((n) => n !== ''))];
      const mode = request.query.mode ?? 'absolute';
      const range = request.query.range ?? '30d';
      let chart: Html = html`<p class="hint">Name up to ${MAX_COMPARED} accounts, separated by commas (for example <code>jack, alice.bsky.social</code>).</p>`;
      let error: string | null = null;
      try {
        if (names.length > MAX_COMPARED)
          throw new PerchError(
            'validation_failed',
            `Compare at most ${MAX_COMPARED} accounts at once (${names.length} given).`,
          );
        if (names.length > 0) {
          const found = await getAccounts(accounts, names, undefined);
          if (found.missing.length > 0) error = `Not tracked: ${found.missing.join(', ')}.`;
          const series = await Promise.all(
            found.data.map((a) =>
              followerSeries(
                accounts,
                accountRef(a.username, a.platform, accounts.config.defaultPlatform),
                range,
                `${a.username} (${a.platform})`,
              ),
            ),
          );
          const label = `Followers of ${series.map((s) => s.label).join(', ')}${mode === 'percent' ? ' as % change' : ''} over ${rangeText(range)}`;
          const window = chartWindow(range, accounts.clock.now(), series);
          if (series.length > 0) chart = timeChart({ id: 'compare-chart', label, series, mode, window });
        }
      } catch (thrown) {
        if (!(thrown instanceof PerchError)) throw thrown;
        error = thrown.detail;
      }
      const body = html`<h1>Compare</h1>
${compareForm(raw, range, mode)}
${notice('error', error)}
${chart}`;
      const scripts = ['uplot.js', 'charts.js'] satisfies AssetName[];
      return sendPage(
        reply,
        layout({ title: 'Compare', session, section: 'compare', body, scripts, styles: ['uplot.css'] }),
      );
    },
  );
}
