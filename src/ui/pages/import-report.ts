// What the Import page shows about imports: one import's report (counts, what the added accounts
// cost, warnings, the rejected lines) and the table of past imports.
import type { Rejection } from '../../domain/csv-import.ts';
import type { TrackingEstimate } from '../../domain/spend.ts';
import type { ImportReport, listImportPage } from '../../services/import-accounts.ts';
import { num, usd, when } from '../format.ts';
import { html, type Html } from '../html.ts';

type PastImport = Awaited<ReturnType<typeof listImportPage>>[number];

/** What the added accounts will cost (X; Bluesky is free). */
function estimateText(estimate: TrackingEstimate[]): Html {
  if (estimate.length === 0) return html`<p id="cost-after">No accounts were added: tracking costs nothing more.</p>`;
  const first = (e: TrackingEstimate) =>
    e.firstReadUsd > 0 ? `, and once up to ${usd(e.firstReadUsd)} for their first timeline reads` : '';
  const each = (e: TrackingEstimate) =>
    `${num(e.accounts)} ${e.platform} account(s), ${usd(e.perDayUsd)} a day (${usd(e.perMonthUsd)} a month)${first(e)}. `;
  return html`<p id="cost-after">Tracking the added accounts: ${estimate.map(each)}</p>`;
}

const figure = (term: string, value: number) => html`<dt>${term}</dt>
  <dd>${num(value)}</dd>`;

export function reportSection(report: ImportReport, estimate: TrackingEstimate[] = []): Html {
  return html`<section id="report" aria-labelledby="report-title">
<h2 id="report-title">Import report</h2>
<dl class="figures">
  ${figure('Rows read', report.received)}
  ${figure('Inserted', report.inserted)}
  ${figure('Reactivated', report.reactivated)}
  ${figure('Already tracked', report.alreadyTracked)}
  ${figure('Duplicates', report.duplicates)}
  ${figure('Rejected', report.rejectedCount)}
</dl>
${estimateText(estimate)}
${report.warnings.map((w) => html`<p class="notice">${w}</p>`)}
${rejectedTable(report.rejected, report.rejectedTruncated)}
<p><a href="/ui/accounts">See the accounts</a></p>
</section>`;
}

const rejectedRow = (r: Rejection) => html`<tr>
  <td class="n">${r.line}</td>
  <td><code>${r.value}</code></td>
  <td>${r.reason}</td>
</tr>`;

export function rejectedTable(rejected: Rejection[], truncated: boolean): Html {
  if (rejected.length === 0) return html``;
  return html`<div class="table-wrap">
<table id="rejected">
<caption>Rejected lines${truncated ? ' (the first 1,000)' : ''}</caption>
<thead>
<tr>
  <th scope="col" class="n">Line</th>
  <th scope="col">Value</th>
  <th scope="col">Reason</th>
</tr>
</thead>
<tbody>
${rejected.map(rejectedRow)}
</tbody>
</table>
</div>`;
}

const pastRow = (i: PastImport) => html`<tr>
  <td>${when(i.createdAt)}</td>
  <td>${i.createdBy ?? '—'}</td>
  <td class="n">${num(i.received)}</td>
  <td class="n">${num(i.inserted)}</td>
  <td class="n">${num(i.rejectedCount)}</td>
</tr>`;

export function pastImports(past: PastImport[]): Html {
  if (past.length === 0) return html`<p class="hint">No imports yet.</p>`;
  return html`<div class="table-wrap">
<table id="past-imports">
<thead>
<tr>
  <th scope="col">When</th>
  <th scope="col">By</th>
  <th scope="col" class="n">Rows</th>
  <th scope="col" class="n">Inserted</th>
  <th scope="col" class="n">Rejected</th>
</tr>
</thead>
<tbody>
${past.map(pastRow)}
</tbody>
</table>
</div>`;
}
