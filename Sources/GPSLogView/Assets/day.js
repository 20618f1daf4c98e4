// gpslog's day page: Leaflet over the basemap, with the day's tracks and places from /api/day/DAY (the viewer's
// own sessions). A click on a place in the list flies the map to it. No request goes to any host but gpslog's and
// the tile server.
(function () {
  'use strict';
  const body = document.body;
  const d = body.dataset;
  const mapDiv = document.getElementById('map');
  if (!d.day || !mapDiv || typeof L === 'undefined') return;
  const map = L.map(mapDiv, { keyboard: true, zoomSnap: 0.25 });
  if (d.tiles) {
    const options = { maxZoom: 19, attribution: d.attribution || '' };
    if (d.tilesMinzoom) options.minNativeZoom = Number(d.tilesMinzoom);
    if (d.tilesMaxzoom) options.maxNativeZoom = Number(d.tilesMaxzoom);
    const base = L.tileLayer(d.tiles, options).addTo(map);
    let loaded = 0;
    let failed = 0;
    base.on('tileload', () => { loaded++; });
    base.on('tileerror', () => { failed++; });
    base.on('load', () => {
      if (loaded > 0 || failed === 0 || d.tilesFile || document.getElementById('map-note')) return;
      const note = document.createElement('p');
      note.id = 'map-note';
      note.className = 'muted';
      note.setAttribute('role', 'status');
      note.textContent = 'Map tiles could not be loaded: the tracks are drawn without a basemap; see serve --tiles.';
      mapDiv.after(note);
      base.remove();
    });
  }
  L.control.scale({ imperial: false }).addTo(map);
  map.setView([20, 0], 2);
  fetch('/api/day/' + encodeURIComponent(d.day), { credentials: 'same-origin' })
    .then((r) => {
      if (!r.ok) throw new Error('the day could not be read (' + r.status + ')');
      return r.json();
    })
    .then((day) => {
      const bounds = L.latLngBounds([]);
      let lines = 0;
      for (const track of day.tracks || []) {
        for (const line of track.lines) {
          if (line.length === 0) continue;
          const layer = L.polyline(line, { color: '#1f6feb', weight: 3, opacity: 0.85 }).addTo(map);
          bounds.extend(layer.getBounds());
          lines++;
        }
      }
      let places = 0;
      for (const item of day.items || []) {
        if (item.kind !== 'visit') continue;
        const marker = L.circleMarker([item.latitude, item.longitude], {
          radius: 7, color: '#b35900', weight: 2, fillOpacity: 0.6,
        }).addTo(map);
        // The name and address came from outside: set as text, never as HTML.
        const label = document.createElement('span');
        label.textContent = item.name || item.address || 'visit ' + item.id;
        marker.bindTooltip(label);
        bounds.extend(marker.getLatLng());
        places++;
      }
      if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24], maxZoom: 17 });
      mapDiv.dataset.lines = String(lines);
      mapDiv.dataset.places = String(places);
      body.dataset.ready = 'true';
    })
    .catch((error) => {
      body.dataset.error = String(error.message || error);
    });
  for (const li of document.querySelectorAll('#timeline li.visit')) {
    li.addEventListener('click', () => {
      map.flyTo([Number(li.dataset.lat), Number(li.dataset.lon)], Math.max(map.getZoom(), 16));
    });
  }
})();
