// gpslog's basemap, shared by the session, history and day pages (each loads this before its own script): the tile
// layer from the page's data- attributes (a tile server's, or serve's own MBTiles file's zooms and bounds), its
// credit, and the one line that replaces a grey box when the tiles cannot be loaded. Served by gpslog, as the pages.
(function () {
  'use strict';
  // Adds the basemap of the page's body to `map` (Leaflet's, drawn in `mapDiv`); `what` ends the failure line
  // ('the track is', 'the tracks are'). Returns the file's bounds (a LatLngBounds) or null.
  //
  // When none of the tiles in view loads (offline, or a server answering errors), one line under the map says so
  // and the layer goes, credit and all: not a grey box credited to a server that sent nothing. A file's missing
  // tile is a hole in the file, and says nothing. mapDiv's data-tiles-loaded and data-tile-errors count the tiles.
  window.gpslogBasemap = function (map, mapDiv, what) {
    const d = document.body.dataset;
    if (!d.tiles) return null;
    const options = { maxZoom: 19, attribution: d.attribution || '' };
    if (d.tilesMinzoom) options.minNativeZoom = Number(d.tilesMinzoom);
    if (d.tilesMaxzoom) options.maxNativeZoom = Number(d.tilesMaxzoom);
    let bounds = null;
    if (d.tilesBounds) {
      const [w, s, e, n] = d.tilesBounds.split(',').map(Number);
      bounds = options.bounds = L.latLngBounds([s, w], [n, e]);
    }
    const layer = L.tileLayer(d.tiles, options).addTo(map);
    const count = { loaded: 0, failed: 0 };
    layer.on('tileload', () => { mapDiv.dataset.tilesLoaded = String(++count.loaded); });
    layer.on('tileerror', () => { mapDiv.dataset.tileErrors = String(++count.failed); });
    layer.on('load', () => {
      if (count.loaded > 0 || count.failed === 0 || d.tilesFile || document.getElementById('map-note')) return;
      const note = document.createElement('p');
      note.id = 'map-note';
      note.className = 'muted';
      note.setAttribute('role', 'status');
      const host = new URL(d.tiles.replace(/[{}]/g, ''), location.href).host;
      note.textContent = 'Map tiles could not be loaded from ' + host + ': ' + what +
        ' drawn without a basemap; see serve --tiles.';
      mapDiv.after(note);
      layer.remove();
    });
    return bounds;
  };
})();
