// gpslog's session page: the glue between Leaflet (the map), dygraphs (the charts) and gpslog's JSON API.
// Written by hand because it is gpslog's own wiring, a page of code; the map and the charts are the libraries
// from Debian's libjs-leaflet and libjs-dygraphs, served by gpslog itself. No request goes to any host but gpslog's
// and the tile server.
(function () {
  'use strict';
  const body = document.body;
  const id = body.dataset.session;
  if (!id || typeof L === 'undefined') return;
  const api = '/api/sessions/' + encodeURIComponent(id);
  const mapDiv = document.getElementById('map');
  const map = L.map(mapDiv, { keyboard: true, zoomSnap: 0.25 });
  if (body.dataset.tiles) {
    L.tileLayer(body.dataset.tiles, { maxZoom: 19, attribution: body.dataset.attribution || '' }).addTo(map);
  }
  L.control.scale({ imperial: false }).addTo(map);
  let points = [];
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

  function drawCharts(data) {
    points = data.entries || [];
    const series = [
      ['speed', 'Speed (km/h)', (e) => (e.speed == null ? null : e.speed * 3.6)],
      ['altitude', 'Elevation (m)', (e) => e.altitude],
      ['accuracy', 'Accuracy (m)', (e) => e.accuracy],
    ];
    for (const [key, label, value] of series) {
      const div = document.getElementById('chart-' + key);
      if (!div || typeof Dygraph === 'undefined') continue;
      const rows = points.map((e) => [new Date(e.time), value(e)]);
      if (!rows.some((r) => r[1] != null)) {
        div.textContent = 'No ' + label.toLowerCase().replace(/ \(.*/, '') + ' in this session.';
        continue;
      }
      const chart = new Dygraph(div, rows, {
        labels: ['time', label], ylabel: label, connectSeparatedPoints: false, legend: 'follow',
        highlightCallback: (event, x, pts, row) => showOnMap(row),
        zoomCallback: (from, to) => {
          const whole = from <= rows[0][0].getTime() && to >= rows[rows.length - 1][0].getTime();
          showWindow(whole ? null : from, whole ? null : to);
        },
        unhighlightCallback: () => { if (cursor) { cursor.remove(); cursor = null; } },
      });
      div.dataset.points = String(rows.length);
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
      charts.forEach((c) => c.setSelection(best));
      showOnMap(best);
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
    const values = [(e) => (e.speed == null ? null : e.speed * 3.6), (e) => e.altitude, (e) => e.accuracy];
    charts.forEach((chart, i) => {
      chart.updateOptions({ file: points.map((e) => [new Date(e.time), values[chart.gpslogSeries](e)]) });
      chart.maindiv_.dataset.points = String(points.length);
    });
  }

  // A long session's track comes simplified to about half a pixel of the whole map (GEOS, on the server, marks
  // kept); zooming a chart into a time window draws that window in full detail over it.
  function trackURL(session) {
    const b = session.boundingBox;
    if (session.trackPoints <= maxFullTrack || !b) return api + '/track.geojson';
    const metres = L.latLng(b.minLatitude, b.minLongitude).distanceTo(L.latLng(b.maxLatitude, b.maxLongitude));
    const tolerance = Math.max(0.5, metres / 4000).toFixed(1);
    mapDiv.dataset.tolerance = tolerance;
    return api + '/track.geojson?tolerance=' + tolerance;
  }

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

  Promise.all([
    fetch(api).then((r) => r.json()).then((s) => fetch(trackURL(s))).then((r) => r.json()).then(drawTrack),
    fetch(api + '/entries').then((r) => r.json()).then(drawCharts),
  ]).then(() => { body.dataset.ready = 'true'; })
    .catch((error) => { body.dataset.error = String(error); });
})();
