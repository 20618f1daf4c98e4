// SPDX-License-Identifier: MIT
// The /stats page's chart: distance per month by mode (per day when the figures cover one month or less), drawn
// with Debian's dygraphs from /api/stats. The chart element gets data-drawn="true" once drawn, "empty" without data.
'use strict';
// What Benchmarks/page-time.py (and the tests) wait for, as on the session page.
function ready() {
  document.body.dataset.readyMs = String(performance.now());
  document.body.dataset.ready = 'true';
}
// The chart's days (UTC) as links to each day's timeline, under the chart.
function listDays(days) {
  const line = document.getElementById('stats-days');
  if (!line || days.length === 0) return;
  line.append('Days: ');
  days.forEach((day, i) => {
    if (i > 0) line.append(' · ');
    const link = document.createElement('a');
    link.href = '/day/' + encodeURIComponent(day);
    link.textContent = day;
    line.append(link);
  });
}
document.addEventListener('DOMContentLoaded', async () => {
  const el = document.getElementById('stats-chart');
  if (!el) return;
  const year = document.body.dataset.year;
  const answer = await fetch('/api/stats' + (year ? '?year=' + encodeURIComponent(year) : ''), {
    credentials: 'same-origin',
  });
  const stats = await answer.json();
  const byDay = stats.months.length < 2 || new Set(stats.months.map((p) => p.period)).size < 2;
  const periods = byDay ? stats.days : stats.months;
  const modes = [...new Set(periods.map((p) => p.mode))].sort();
  const sums = new Map();
  for (const p of periods) {
    if (!sums.has(p.period)) sums.set(p.period, modes.map(() => 0));
    sums.get(p.period)[modes.indexOf(p.mode)] += p.distanceMetres / 1000;
  }
  const rows = [...sums.keys()].sort().map((k) => [new Date(byDay ? k + 'T00:00:00Z' : k + '-01T00:00:00Z'), ...sums.get(k)]);
  if (rows.length === 0) {
    el.textContent = 'No distance recorded yet.';
    el.dataset.drawn = 'empty';
    ready();
    return;
  }
  if (byDay) listDays([...sums.keys()].sort());
  if (rows.length === 1) {
    // One period: a bar needs a second point to have a width.
    const next = new Date(rows[0][0].getTime() + (byDay ? 86400000 : 31 * 86400000));
    rows.push([next, ...modes.map(() => 0)]);
  }
  new Dygraph(el, rows, {
    labels: [byDay ? 'Day' : 'Month', ...modes],
    ylabel: 'km',
    stackedGraph: true,
    stepPlot: true,
    fillGraph: true,
    labelsUTC: true,
    // By day, a click on the chart opens that day's timeline.
    clickCallback: byDay ? (event, x) => { location.href = '/day/' + new Date(x).toISOString().slice(0, 10); } : null,
    drawCallback: (g, first) => {
      if (!first) return;
      el.dataset.drawn = 'true';
      ready();
    },
  });
});
