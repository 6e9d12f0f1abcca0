// The Overview's spend: X's spend from the ledger (today, this month, the projection to month end)
// and each budget with what is left. Bluesky is free.
import type { SpendSummary } from '../../services/spend.ts';
import { num, usd } from '../format.ts';
import { html, type Html } from '../html.ts';

const spendRow = (label: string, t: { users: number; posts: number; usd: number }) => html`<tr>
  <th scope="row">${label}</th>
  <td class="n">${num(t.users)}</td>
  <td class="n">${num(t.posts)}</td>
  <td class="n">${usd(t.usd)}</td>
</tr>`;

const amount = (unit: string, n: number) => (unit === 'usd' ? usd(n) : `${num(n)} ${unit}`);

const budgetRow = (b: SpendSummary['budgets'][number]) => html`<tr>
  <th scope="row">${b.name}</th>
  <td class="n">${amount(b.unit, b.used)}</td>
  <td class="n">${amount(b.unit, b.limit)}</td>
  <td class="n">${amount(b.unit, b.remaining)}</td>
</tr>`;

export function spendTables(spend: SpendSummary): Html {
  // A projection is an estimate: to the cent, where the prices and sums keep their decimals.
  const projected = spend.projectedMonthUsd === null ? '—' : usd(Math.round(spend.projectedMonthUsd * 100) / 100);
  return html`<div class="table-wrap">
<table id="spend">
<caption>X spend (Bluesky is free): ${usd(spend.rateCard.userUsd)} per user read, ${usd(spend.rateCard.postUsd)} per post read, once per UTC day</caption>
<thead>
<tr>
  <th scope="col"></th>
  <th scope="col" class="n">Users</th>
  <th scope="col" class="n">Posts</th>
  <th scope="col" class="n">Dollars</th>
</tr>
</thead>
<tbody>
${spendRow(`Today (${spend.today.day})`, spend.today)}
${spendRow(`This month (${spend.month.month})`, spend.month)}
<tr>
  <th scope="row">Projected to month end</th>
  <td></td>
  <td></td>
  <td class="n">${projected}</td>
</tr>
</tbody>
</table>
</div>
<div class="table-wrap">
<table id="budgets">
<caption>X budgets</caption>
<thead>
<tr>
  <th scope="col">Budget</th>
  <th scope="col" class="n">Used</th>
  <th scope="col" class="n">Limit</th>
  <th scope="col" class="n">Left</th>
</tr>
</thead>
<tbody>
${spend.budgets.map(budgetRow)}
</tbody>
</table>
</div>`;
}
