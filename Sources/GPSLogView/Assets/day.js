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
  if (window.gpslogBasemap) window.gpslogBasemap(map, mapDiv, 'the tracks are');
  L.control.scale({ imperial: false }).addTo(map);
  map.setView([20, 0], 2);
  fetch('/api/day/' + encodeURIComponent(d.day) + (d.tz ? '?tz=' + encodeURIComponent(d.tz) : ''), {
    credentials: 'same-origin',
  })
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
