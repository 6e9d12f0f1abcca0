// Charts as the server writes them: a time-series figure that charts.js draws with uPlot from
// JSON in the page (with an accessible name and a table alternative), and small bar charts drawn
// here as SVG, which need no script at all.
import { num } from './format.ts';
import { html, jsonData, type Html } from './html.ts';

export interface Series {
  label: string;
  /** Epoch seconds, ascending. */
  times: number[];
  values: number[];
}

export interface TimeChart {
  id: string;
  /** The accessible name; it starts with what is charted ("Followers …"). */
  label: string;
  series: Series[];
  /** `percent`: each series as % change from its first point. */
  mode: 'absolute' | 'percent';
  /** The time axis, epoch seconds: the chosen window, whatever the points cover. */
  window: { from: number; to: number };
}

/** Below this many points a line says little: the chart says so in words. */
const FEW_POINTS = 2;

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** The last value of each UTC day, for the table alternative (a chart may hold thousands of points). */
function daily(series: Series): { date: string; value: number }[] {
  const byDay = new Map<string, number>();
  series.times.forEach((t, i) => byDay.set(day(t), series.values[i] ?? 0));
  return [...byDay].map(([date, value]) => ({ date, value }));
}

const dayRow = (row: { date: string; value: number }) => html`<tr>
  <td>${row.date}</td>
  <td class="n">${num(row.value)}</td>
</tr>`;

const dailyTable = (s: Series) => html`<table>
<caption>${s.label}: the last value of each day (UTC)</caption>
<thead>
<tr>
  <th scope="col">Day</th>
  <th scope="col" class="n">Followers</th>
</tr>
</thead>
<tbody>
${daily(s).map(dayRow)}
</tbody>
</table>`;

function fewPoints(chart: TimeChart): Html {
  const most = Math.max(0, ...chart.series.map((s) => s.times.length));
  if (most >= FEW_POINTS) return html``;
  const said =
    most === 0
      ? 'No checks in this window yet: the chart fills in as perch checks the account.'
      : 'Only one check in this window so far: a line needs at least two, so the chart shows a single point.';
  return html`<p class="hint few-points" role="note">${said}</p>`;
}

export function timeChart(chart: TimeChart): Html {
  const points = chart.series.reduce((sum, s) => sum + s.times.length, 0);
  const { from, to } = chart.window;
  return html`<figure class="chart">
${fewPoints(chart)}
<div id="${chart.id}" class="chart-area" role="img" aria-label="${chart.label}" data-chart="${chart.id}-data" data-mode="${chart.mode}" data-from="${from}" data-to="${to}" data-points="0"></div>
<figcaption>${chart.label}</figcaption>
${jsonData(`${chart.id}-data`, { series: chart.series, total: points, window: chart.window })}
<details class="alt">
<summary>The numbers as a table</summary>
<div class="table-wrap">
${chart.series.map(dailyTable)}
</div>
</details>
</figure>`;
}

/** Bars for a short list of counts (posts per UTC hour), as SVG with every third label under it and a table beside it. */
export function barChart(id: string, label: string, labels: string[], values: number[]): Html {
  const max = Math.max(1, ...values);
  const width = 24 * Math.max(1, labels.length);
  const bar = (
    v: number,
    i: number,
  ) => html`<rect x="${i * 24 + 3}" y="${100 - (v / max) * 96}" width="18" height="${(v / max) * 96}">
  <title>${labels[i]}: ${v}</title>
</rect>`;
  return html`<figure class="bars">
<svg id="${id}" role="img" aria-label="${label}" viewBox="0 0 ${width} 100" preserveAspectRatio="none" class="bar-svg">
${values.map(bar)}
</svg>
<div class="bar-labels" aria-hidden="true">
  ${labels.map((l, i) => html`<span>${i % 3 === 0 ? l : ''}</span>`)}
</div>
<figcaption>${label}</figcaption>
<details class="alt">
<summary>As a table</summary>
<div class="table-wrap">
<table>
<thead>
<tr>
  ${labels.map((l) => html`<th scope="col">${l}</th>`)}
</tr>
</thead>
<tbody>
<tr>
  ${values.map((v) => html`<td class="n">${v}</td>`)}
</tr>
</tbody>
</table>
</div>
</details>
</figure>`;
}
