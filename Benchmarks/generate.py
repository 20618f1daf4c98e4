#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deterministic benchmark inputs: a GPX 1.1 track with N points (ele and time), an NMEA 0183 log with N
epochs (RMC + GGA, 2N sentences, checksums right), and a GeoJSON FeatureCollection of N Point features with the
properties trackers write (Overland's timestamp, accuracies, speed, course, battery), and a KML gx:Track of N points
as Google Earth writes it (all the `when`s, then all the `gx:coord`s). The track is a smooth walk around
the IJsselmeer, one point per second, starting 2024-05-01T06:00:00Z; the same N always gives the same bytes.

usage: generate.py gpx N OUT | generate.py nmea N OUT | generate.py points N OUT | generate.py kml N OUT
       generate.py day K OUT   (day K from 2024-05-01: a walk between places on the IJsselmeer's shore, with
                                 20-minute stays, one point every 5 s: what `record --visits` makes visits of)
"""
import math
import sys
from datetime import datetime, timedelta, timezone

START = datetime(2024, 5, 1, 6, 0, 0, tzinfo=timezone.utc)


def track(n):
    lat, lon = 52.6, 5.3
    for i in range(n):
        # A slow spiral with a little wobble: distinct, plausible, deterministic.
        a = i / 5000.0
        lat = 52.6 + 0.2 * math.sin(a) + 0.0003 * math.sin(i / 7.0)
        lon = 5.3 + 0.3 * math.cos(a * 0.7) + 0.0003 * math.cos(i / 11.0)
        ele = 10.0 + 5.0 * math.sin(i / 300.0)
        yield i, lat, lon, ele, START + timedelta(seconds=i)


def gpx(n, out):
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w('<gpx version="1.1" creator="gpslog benchmark generator" xmlns="http://www.topografix.com/GPX/1/1">\n')
    w(' <trk><name>bench</name><trkseg>\n')
    for _, lat, lon, ele, t in track(n):
        w('  <trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele><time>%s</time></trkpt>\n'
          % (lat, lon, ele, t.strftime('%Y-%m-%dT%H:%M:%SZ')))
    w(' </trkseg></trk>\n</gpx>\n')


def points(n, out):
    w = out.write
    w('{"type":"FeatureCollection","features":[\n')
    for i, lat, lon, ele, t in track(n):
        w('%s{"type":"Feature","geometry":{"type":"Point","coordinates":[%.7f,%.7f]},"properties":'
          '{"timestamp":"%s","altitude":%.1f,"speed":1.4,"course":%d,"horizontal_accuracy":5,'
          '"vertical_accuracy":3,"battery_level":0.8,"battery_state":"unplugged"}}\n'
          % ('' if i == 0 else ',', lon, lat, t.strftime('%Y-%m-%dT%H:%M:%SZ'), ele, i % 360))
    w(']}\n')


def kml(n, out):
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w('<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">\n')
    w('<Document><name>bench</name><Placemark><name>bench</name><gx:Track>\n')
    w('<altitudeMode>absolute</altitudeMode>\n')
    for _, _, _, _, t in track(n):
        w('<when>%s</when>\n' % t.strftime('%Y-%m-%dT%H:%M:%SZ'))
    for _, lat, lon, ele, _ in track(n):
        w('<gx:coord>%.7f %.7f %.1f</gx:coord>\n' % (lon, lat, ele))
    w('</gx:Track></Placemark></Document></kml>\n')


def sentence(body):
    c = 0
    for ch in body.encode('ascii'):
        c ^= ch
    return '$%s*%02X\r\n' % (body, c)


def dm(value, positive, negative, width):
    hemi = positive if value >= 0 else negative
    value = abs(value)
    deg = int(value)
    return '%0*d%07.4f' % (width, deg, (value - deg) * 60), hemi


def nmea(n, out):
    w = out.write
    prev = None
    for i, lat, lon, ele, t in track(n):
        la, ns = dm(lat, 'N', 'S', 2)
        lo, ew = dm(lon, 'E', 'W', 3)
        hms = t.strftime('%H%M%S') + '.00'
        speed_kn, course = 0.0, 0.0
        if prev:
            dy = (lat - prev[0]) * 111320.0
            dx = (lon - prev[1]) * 111320.0 * math.cos(math.radians(lat))
            speed_kn = math.hypot(dx, dy) / 0.514444
            course = (math.degrees(math.atan2(dx, dy)) + 360.0) % 360.0
        prev = (lat, lon)
        w(sentence('GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A' % (hms, la, ns, lo, ew, speed_kn, course, t.strftime('%d%m%y'))))
        w(sentence('GPGGA,%s,%s,%s,%s,%s,1,09,0.9,%.1f,M,46.9,M,,' % (hms, la, ns, lo, ew, ele)))


# Places on the IJsselmeer's shore (Enkhuizen, Hoorn, Medemblik, Stavoren, Lelystad, Urk), lat and lon.
PLACES = [(52.7035, 5.2930), (52.6390, 5.0600), (52.7710, 5.1050), (52.8850, 5.3600), (52.5180, 5.4710),
          (52.6610, 5.6010)]


def day(k, out):
    """Day k: from one place to the next two and back, at 5 m/s, staying 20 minutes at each: a GPX track."""
    start = START + timedelta(days=k, hours=2 + k % 3)
    stops = [PLACES[k % len(PLACES)], PLACES[(k + 1) % len(PLACES)], PLACES[(k + 3) % len(PLACES)],
             PLACES[k % len(PLACES)]]
    t = start
    points = []
    for (a, b) in zip(stops, stops[1:]):
        for _ in range(240):  # twenty minutes at the place, a metre's jitter
            points.append((a[0] + 0.00001 * math.sin(len(points)), a[1], t))
            t += timedelta(seconds=5)
        dy = (b[0] - a[0]) * 111320.0
        dx = (b[1] - a[1]) * 111320.0 * math.cos(math.radians(a[0]))
        steps = max(1, int(math.hypot(dx, dy) / 25.0))  # 5 m/s, a point every 5 s
        for i in range(steps):
            f = i / steps
            bend = 0.02 * math.sin(math.pi * f)  # not a straight line: along the shore
            points.append((a[0] + (b[0] - a[0]) * f + bend, a[1] + (b[1] - a[1]) * f - bend, t))
            t += timedelta(seconds=5)
    last = stops[-1]
    for _ in range(240):
        points.append((last[0], last[1], t))
        t += timedelta(seconds=5)
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w('<gpx version="1.1" creator="gpslog benchmark generator" xmlns="http://www.topografix.com/GPX/1/1">\n')
    w(' <trk><name>day %d</name><trkseg>\n' % k)
    for lat, lon, when in points:
        w('  <trkpt lat="%.7f" lon="%.7f"><ele>1.0</ele><time>%s</time></trkpt>\n'
          % (lat, lon, when.strftime('%Y-%m-%dT%H:%M:%SZ')))
    w(' </trkseg></trk>\n</gpx>\n')


def main():
    writers = {'gpx': gpx, 'nmea': nmea, 'points': points, 'kml': kml, 'day': day}
    if len(sys.argv) != 4 or sys.argv[1] not in writers:
        sys.exit(__doc__)
    kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, 'w', buffering=1 << 20, newline='') as out:
        writers[kind](n, out)


if __name__ == '__main__':
    main()
