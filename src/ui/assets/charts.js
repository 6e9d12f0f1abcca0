// Draws the time-series charts with uPlot from the JSON the server put in the page. The figure
// already holds an accessible name and a table; this adds the picture.
'use strict';
(() => {
  const style = getComputedStyle(document.documentElement);
  const color = (i) => style.getPropertyValue(`--chart-${(i % 5) + 1}`).trim() || '#0a58ca';
  const axis = {
    stroke: style.getPropertyValue('--muted').trim(),
    grid: { stroke: style.getPropertyValue('--line').trim(), width: 1 },
  };

  function draw(el) {
    const shown = (u) => {
      el.dataset.xMin = String(u.scales.x.min);
      el.dataset.xMax = String(u.scales.x.max);
    };
    const source = document.getElementById(el.dataset.chart);
    if (!source || typeof uPlot === 'undefined') return;
    const { series, window: span } = JSON.parse(source.textContent);
    const percent = el.dataset.mode === 'percent';
    const tables = series.map((s) => {
      const base = s.values[0] || 1;
      return [s.times, percent ? s.values.map((v) => Math.round(((v - base) / base) * 10000) / 100) : s.values];
    });
    const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    const opts = {
      width: Math.max(280, el.clientWidth),
      height: 260,
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: color(i),
          width: 2,
          spanGaps: true,
          // A lone point has no line: draw the points whenever they are few.
          points: { show: s.times.length < 30, size: 7 },
          value: (_u, v) => (v == null ? '—' : percent ? `${v} %` : v.toLocaleString('en')),
        })),
      ],
      axes: [
        axis,
        { ...axis, size: 60, values: (_u, ticks) => ticks.map((v) => (percent ? `${v} %` : v.toLocaleString('en'))) },
      ],
      // The chosen window, not the span of the points (one point would stretch the axis over years).
      scales: { x: { time: true, range: () => [span.from, span.to] } },
      // The drawn x-range, for tests and for anyone inspecting the page.
      hooks: { ready: [(u) => shown(u)], setScale: [(u, key) => key === 'x' && shown(u)] },
    };
    el.textContent = '';
    const plot = new uPlot(opts, data, el);
    el.dataset.points = String(series.reduce((sum, s) => sum + s.times.length, 0));
    new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 260 })).observe(el);
  }

  for (const el of document.querySelectorAll('[data-chart]')) draw(el);
})();
