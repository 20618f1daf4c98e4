// gpslog's history map: Leaflet over the basemap, with every track as picture tiles that gpslog draws from its kept
// tile pyramid (never the points); a click asks gpslog which session passes there and opens it. No request goes
// to any host but gpslog's and the tile server.
(function () {
  'use strict';
  const body = document.body;
  const d = body.dataset;
  if (!d.history || typeof L === 'undefined') return;
  const mapDiv = document.getElementById('map');
  const map = L.map(mapDiv, { keyboard: true });
  if (window.gpslogBasemap) window.gpslogBasemap(map, mapDiv, 'the tracks are');
  L.control.scale({ imperial: false }).addTo(map);
  // The form's filters (from, to, device, mode, style) go with every tile and click.
  const query = location.search;
  const history = L.tileLayer(d.history + query, { maxZoom: 22, maxNativeZoom: 22, attribution: 'Tracks: gpslog' });
  const count = { loaded: 0, failed: 0 };
  history.on('tileload', () => { mapDiv.dataset.historyLoaded = String(++count.loaded); });
  history.on('tileerror', () => { mapDiv.dataset.historyErrors = String(++count.failed); });
  history.on('load', () => { mapDiv.dataset.ready = 'true'; });
  history.addTo(map);
  if (d.bounds) {
    const [s, w, n, e] = d.bounds.split(',').map(Number);
    map.fitBounds([[s, w], [n, e]], { padding: [20, 20], maxZoom: 16 });
  } else {
    map.setView([20, 0], 2);
  }
  map.on('click', (event) => {
    const p = new URLSearchParams(query);
    p.set('lat', event.latlng.lat.toFixed(6));
    p.set('lon', L.Util.wrapNum(event.latlng.lng, [-180, 180], true).toFixed(6));
    p.set('z', String(Math.round(map.getZoom())));
    fetch('/api/history/at?' + p.toString(), { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.json() : null))
      .then((found) => {
        if (found && found.id) location.href = '/sessions/' + encodeURIComponent(found.id);
      });
  });
})();
