// gpslog's session page: the glue between Leaflet (the map), dygraphs (the charts) and gpslog's JSON API.
// Written by hand because it is gpslog's own wiring, a page of code; the map and the charts are the libraries
// from Debian's libjs-leaflet and libjs-dygraphs, served by gpslog itself. No request goes to any host but gpslog's
// and the tile server.
(function () {
  'use strict';
  const body = document.body;
  const id = body.dataset.session;
  if (!id || typeof L === 'undefined') return;
  const api = (body.dataset.base || '') + '/api/sessions/' + encodeURIComponent(id);
  const mapDiv = document.getElementById('map');
  const map = L.map(mapDiv, { keyboard: true, zoomSnap: 0.25 });
  // The basemap (basemap.js): its bounds are where the map goes when the session has no point.
  const basemapBounds = window.gpslogBasemap ? window.gpslogBasemap(map, mapDiv, 'the track is') : null;
  L.control.scale({ imperial: false }).addTo(map);
  let points = [];
  let headings = [];
  const charts = [];
  // Past this many track points the map gets a simplified track first.
  const maxFullTrack = 20000;
  let cursor = null;

  function text(s) {
    const span = document.createElement('span');
    span.textContent = s == null ? '' : String(s);
    return span.innerHTML;
  }

  function drawTrack(fc) {
    const bounds = L.latLngBounds([]);
    let segments = 0;
    let first = null;
    let last = null;
    let marks = 0;
    for (const f of fc.features || []) {
      const g = f.geometry;
      const p = f.properties || {};
      if (!g) continue;
      if (g.type === 'LineString' || g.type === 'MultiLineString') {
        const lines = g.type === 'LineString' ? [g.coordinates] : g.coordinates;
        for (const line of lines) {
          if (line.length === 0) continue;
          const latlngs = line.map((c) => [c[1], c[0]]);
          L.polyline(latlngs, { color: '#c0392b', weight: 3, className: 'gpslog-segment' }).addTo(map);
          latlngs.forEach((ll) => bounds.extend(ll));
          if (!first) first = latlngs[0];
          last = latlngs[latlngs.length - 1];
          segments += 1;
        }
      } else if (g.type === 'Point') {
        const ll = [g.coordinates[1], g.coordinates[0]];
        bounds.extend(ll);
        const kind = p.kind || 'mark';
        const colour = kind === 'transition' ? '#6a1b9a' : kind === 'visit' ? '#ef6c00' : '#1565c0';
        const title = kind === 'transition' ? p.event + ' ' + (p.region || p.desc || '') :
          kind === 'visit' ? 'visit' : (p.label || 'mark');
        const when = kind === 'visit' ? p.arrival : p.time;
        const marker = L.circleMarker(ll, { radius: 6, color: '#ffffff', weight: 2, fillColor: colour, fillOpacity: 1,
          className: 'gpslog-' + kind }).addTo(map);
        marker.bindPopup('<b>' + text(title) + '</b><br>' + text(when) + (p.address ? '<br>' + text(p.address) : ''));
        if (kind === 'mark' && p.label) marker.bindTooltip(text(p.label), { permanent: true, direction: 'right' });
        if (kind === 'mark') marks += 1;
      }
    }
    if (first) L.circleMarker(first, { radius: 7, color: '#ffffff', weight: 2, fillColor: '#2e7d32', fillOpacity: 1,
      className: 'gpslog-start' }).bindTooltip('start').addTo(map);
    if (last) L.circleMarker(last, { radius: 7, color: '#ffffff', weight: 2, fillColor: '#b71c1c', fillOpacity: 1,
      className: 'gpslog-end' }).bindTooltip('end').addTo(map);
    if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24], maxZoom: 18 });
    else if (basemapBounds) map.fitBounds(basemapBounds);
    else map.setView([0, 0], 2);
    mapDiv.dataset.segments = String(segments);
    mapDiv.dataset.marks = String(marks);
    mapDiv.dataset.vertices = String((fc.features || []).reduce((n, f) => n + vertexCount(f.geometry), 0));
  }

  function vertexCount(g) {
    if (!g) return 0;
    if (g.type === 'LineString') return g.coordinates.length;
    if (g.type === 'MultiLineString') return g.coordinates.reduce((n, l) => n + l.length, 0);
    return 0;
  }

  function showOnMap(index) {
    const e = points[index];
    if (!e) return;
    if (!cursor) cursor = L.circleMarker([e.lat, e.lon], { radius: 8, color: '#000000', weight: 2, fillOpacity: 0,
      className: 'gpslog-cursor' }).addTo(map);
    cursor.setLatLng([e.lat, e.lon]);
    mapDiv.dataset.cursor = String(index);
  }

  // The charts' values, by series; the speed is the receiver's or, when it gave none, the server's derived one.
  const series = [
    ['speed', 'Speed (km/h)', (e) => (e.speed == null ? null : e.speed * 3.6)],
    ['altitude', 'Elevation (m)', (e) => e.altitude],
    ['accuracy', 'Accuracy (m)', (e) => e.accuracy],
  ];
  // The charts' rows: a point each, and an empty row before a point after a gap (the server marks it), so that
  // no line is drawn across hours or months without a point. `rowOf` and `pointOf` map between rows and points.
  let rowOf = [];
  let pointOf = [];
  function chartRows(value) {
    const rows = [];
    rowOf = [];
    pointOf = [];
    points.forEach((e, i) => {
      const t = new Date(e.time);
      if (e.gap && rows.length > 0) {
        rows.push([new Date(t.getTime() - 1), null]);
        pointOf.push(i - 1);
      }
      rowOf.push(rows.length);
      pointOf.push(i);
      rows.push([t, value(e)]);
    });
    return rows;
  }

  // Times on the charts are UTC in ISO 8601, whatever the browser's locale and zone: `09:47:40`, `05-08 18:04`
  // when the chart spans days, `2024-05-08` at midnight.
  function spansDays(g) {
    const range = g && g.xAxisRange ? g.xAxisRange() : null;
    return !!range && range[1] - range[0] > 86400000;
  }
  function axisTime(d, granularity, opts, g) {
    const iso = new Date(d).toISOString();
    if (spansDays(g)) return iso.slice(11, 19) === '00:00:00' ? iso.slice(0, 10) : iso.slice(5, 10) + ' ' + iso.slice(11, 16);
    return iso.slice(17, 19) === '00' ? iso.slice(11, 16) : iso.slice(11, 19);
  }
  function fullTime(ms) { return new Date(ms).toISOString().replace('T', ' ').replace('.000Z', 'Z'); }

  function drawCharts(data) {
    points = data.entries || [];
    headings = data.headings || [];
    for (const [key, label, value] of series) {
      const div = document.getElementById('chart-' + key);
      if (!div || typeof Dygraph === 'undefined') continue;
      const rows = chartRows(value);
      if (!rows.some((r) => r[1] != null)) {
        div.textContent = 'No ' + label.toLowerCase().replace(/ \(.*/, '') + ' in this session.';
        div.classList.add('chart-empty');
        continue;
      }
      if (key === 'speed' && data.speedDerived) {
        div.dataset.derived = 'true';
        div.insertAdjacentHTML('beforebegin',
          '<p class="chart-note" id="speed-derived">Speed derived from positions: the receiver gave none.</p>');
      }
      const chart = new Dygraph(div, rows, {
        labels: ['time', label], ylabel: label, connectSeparatedPoints: false, legend: 'follow', labelsUTC: true,
        // Room for the widest label (`05-08 18:04`), so that none is cut by the chart's edge.
        axes: {
          x: { axisLabelWidth: 100, pixelsPerLabel: 110, axisLabelFormatter: axisTime, valueFormatter: fullTime },
          y: { axisLabelWidth: 60 },
        },
        highlightCallback: (event, x, pts, row) => { selected = pointOf[row]; showOnMap(selected); },
        zoomCallback: (from, to) => {
          const whole = from <= rows[0][0].getTime() && to >= rows[rows.length - 1][0].getTime();
          showWindow(whole ? null : from, whole ? null : to);
        },
        unhighlightCallback: () => { if (cursor) { cursor.remove(); cursor = null; } },
      });
      div.dataset.points = String(points.length);
      div.dataset.gaps = String(rows.length - points.length);
      chart.gpslogSeries = series.findIndex((s) => s[0] === key);
      charts.push(chart);
    }
    // A click on the map selects the nearest point on every chart.
    map.on('click', (event) => {
      let best = -1;
      let bestDistance = Infinity;
      points.forEach((e, i) => {
        const d = map.distance(event.latlng, [e.lat, e.lon]);
        if (d < bestDistance) { best = i; bestDistance = d; }
      });
      if (best < 0) return;
      select(best);
    });
    document.getElementById('charts').dataset.ready = 'true';
    if (body.dataset.recording === 'true') follow(data.cursor);
  }

  // A recording: its new points arrive as Server-Sent Events; the track and the charts grow, a marker shows where
  // the receiver is now. EventSource reconnects by itself, resuming after the last event it got.
  function follow(cursor) {
    const live = L.polyline([], { color: '#c0392b', weight: 3, className: 'gpslog-live' }).addTo(map);
    const last = points[points.length - 1];
    if (last) live.addLatLng([last.lat, last.lon]);
    let current = null;
    let received = 0;
    let redraw = null;
    const source = new EventSource(api + '/live' + (cursor ? '?after=' + encodeURIComponent(cursor) : ''));
    source.addEventListener('point', (event) => {
      const e = JSON.parse(event.data);
      points.push(e);
      live.addLatLng([e.lat, e.lon]);
      if (!current) current = L.circleMarker([e.lat, e.lon], { radius: 8, color: '#ffffff', weight: 3,
        fillColor: '#1565c0', fillOpacity: 1, className: 'gpslog-current' }).addTo(map);
      current.setLatLng([e.lat, e.lon]);
      received += 1;
      mapDiv.dataset.live = String(received);
      // The charts are redrawn at most once a second, however fast points come.
      if (!redraw) redraw = setTimeout(() => { redraw = null; updateCharts(); }, 1000);
    });
    source.addEventListener('end', () => {
      source.close();
      mapDiv.dataset.ended = 'true';
      document.querySelectorAll('.live').forEach((el) => { el.textContent = 'ended'; });
    });
  }

  function updateCharts() {
    charts.forEach((chart) => {
      const rows = chartRows(series[chart.gpslogSeries][2]);
      chart.updateOptions({ file: rows });
      chart.maindiv_.dataset.points = String(points.length);
      chart.maindiv_.dataset.gaps = String(rows.length - points.length);
    });
  }

  // A long session's track comes simplified to about a pixel of the map as first drawn (GEOS on the server, a
  // segment at a time, marks kept): a line thinner than a pixel is not seen, and the page stays a few MB however
  // long the session; zooming a chart into a time window draws that window in full detail over it.
  function trackURL(session) {
    const b = session.boundingBox;
    if (session.trackPoints <= maxFullTrack || !b) return api + '/track.geojson';
    const metres = L.latLng(b.minLatitude, b.minLongitude).distanceTo(L.latLng(b.maxLatitude, b.maxLongitude));
    const pixels = Math.max(400, Math.hypot(mapDiv.clientWidth, mapDiv.clientHeight));
    const tolerance = Math.max(0.5, metres / pixels).toFixed(1);
    mapDiv.dataset.tolerance = tolerance;
    return api + '/track.geojson?tolerance=' + tolerance;
  }

  // Heading changes as small arrows pointing the new way, those in view only and at most `maxArrows` of them
  // (evenly picked), redrawn when the map moves: a long drive has thousands.
  const maxArrows = 300;
  const arrows = L.layerGroup().addTo(map);
  function drawArrows() {
    arrows.clearLayers();
    const view = map.getBounds();
    const inView = headings.filter((h) => view.contains([h.lat, h.lon]));
    const step = Math.max(1, Math.ceil(inView.length / maxArrows));
    let drawn = 0;
    for (let i = 0; i < inView.length; i += step) {
      const h = inView[i];
      const icon = L.divIcon({ className: 'gpslog-heading', iconSize: [18, 18],
        html: '<svg viewBox="-9 -9 18 18" width="18" height="18" style="transform: rotate(' +
          (Number(h.course) || 0) + 'deg)"><path d="M0,-7 L5.5,6 L0,2.5 L-5.5,6 Z"/></svg>' });
      L.marker([h.lat, h.lon], { icon, keyboard: false, interactive: false }).addTo(arrows);
      drawn += 1;
    }
    mapDiv.dataset.arrows = String(drawn);
  }
  map.on('moveend', drawArrows);

  // The keyboard: with the charts focused, the left and right arrows step the cursor through the points (with
  // Shift, a hundredth of the window at a time), Home and End go to the ends, Escape hides it.
  let selected = -1;
  function select(index) {
    if (points.length === 0) return;
    selected = Math.max(0, Math.min(points.length - 1, index));
    charts.forEach((c) => c.setSelection(rowOf[selected]));
    showOnMap(selected);
  }
  document.getElementById('charts').addEventListener('keydown', (event) => {
    const big = Math.max(1, Math.round(points.length / 100));
    const moves = { ArrowRight: selected + (event.shiftKey ? big : 1), ArrowLeft: selected - (event.shiftKey ? big : 1),
      Home: 0, End: points.length - 1 };
    if (event.key in moves) { select(moves[event.key]); event.preventDefault(); }
    if (event.key === 'Escape') { charts.forEach((c) => c.clearSelection()); if (cursor) { cursor.remove(); cursor = null; } }
  });
  // The marks listed under the map (rendered on the server) fly the map to theirs.
  document.querySelectorAll('[data-mark-lat]').forEach((button) => {
    button.addEventListener('click', () => {
      map.flyTo([Number(button.dataset.markLat), Number(button.dataset.markLon)], Math.max(map.getZoom(), 16));
    });
  });

  let detail = null;
  function showWindow(from, to) {
    if (detail) { detail.remove(); detail = null; }
    if (from == null || to == null) return;
    const q = '?from=' + new Date(from).toISOString() + '&to=' + new Date(to).toISOString();
    fetch(api + '/entries' + q).then((r) => r.json()).then((data) => {
      detail = L.polyline(data.entries.map((e) => [e.lat, e.lon]), { color: '#1565c0', weight: 3,
        className: 'gpslog-detail' }).addTo(map);
      mapDiv.dataset.detail = String(data.entries.length);
    });
  }

  // When the page is ready: how long it took and how many bytes it fetched (for `make bench` and the curious).
  function measure() {
    const entries = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
    body.dataset.readyMs = String(Math.round(performance.now()));
    body.dataset.bytes = String(entries.reduce((n, e) => n + (e.transferSize || 0), 0));
    body.dataset.ready = 'true';
  }

  Promise.all([
    fetch(api).then((r) => r.json()).then((s) => fetch(trackURL(s))).then((r) => r.json()).then(drawTrack),
    fetch(api + '/entries').then((r) => r.json()).then(drawCharts),
  ]).then(() => { drawArrows(); measure(); })
    .catch((error) => { body.dataset.error = String(error); });
})();
