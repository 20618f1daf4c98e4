#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A bounded loopback client for `gpslog serve`: posts Overland batches and prints points per second.

  Benchmarks/ingest.py URL [URL...] --batches 500 --points 200 --clients 4 --devices 8 [--token TOKEN | --tokens FILE]

Each of --clients threads keeps one HTTP/1.1 connection and posts its share of the batches one after the other
(so at most --clients requests are in flight), client n to URL n % (number of URLs): several serve processes on one
database, as behind a load balancer; batch k goes to device k % --devices, one location a second, so no
location repeats. --token is sent as `Authorization: Bearer` (a device token: give --devices 1 and a device named
bench-0). --tokens names a file of device tokens, one a line, the n-th for device bench-n (accounts on, each
device with its own token, as `gpslog device add USER/bench-n` prints them). Every answer must be 200 {"result":"ok"}: anything else stops the run with the answer. Prints one
JSON object: points stored, seconds, points per second.
"""
import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse


def batch(k, points, devices):
    device = "bench-%d" % (k % devices)
    start = 1_700_000_000 + (k // devices) * points
    locations = []
    for i in range(points):
        t = start + i
        locations.append({
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [4.3 + (t % 1000) * 1e-4, 52.1 + (t % 777) * 1e-4]},
            "properties": {
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)), "device_id": device,
                "speed": i % 20, "horizontal_accuracy": 5, "altitude": 3,
            },
        })
    return json.dumps({"locations": locations}).encode()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("urls", nargs="+")
    p.add_argument("--batches", type=int, default=500)
    p.add_argument("--points", type=int, default=200)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--devices", type=int, default=8)
    p.add_argument("--token")
    p.add_argument("--tokens")
    a = p.parse_args()
    tokens = [line.strip() for line in open(a.tokens) if line.strip()] if a.tokens else []
    urls = [urllib.parse.urlparse(u) for u in a.urls]
    bodies = [batch(k, a.points, a.devices) for k in range(a.batches)]  # made before the clock starts
    failures = []

    def client(n):
        url = urls[n % len(urls)]
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
        for k in range(n, a.batches, a.clients):
            if failures:
                return
            headers = {"Content-Type": "application/json"}
            if tokens:
                headers["Authorization"] = "Bearer " + tokens[(k % a.devices) % len(tokens)]
            elif a.token:
                headers["Authorization"] = "Bearer " + a.token
            conn.request("POST", "/", body=bodies[k], headers=headers)
            r = conn.getresponse()
            text = r.read().decode()
            if r.status != 200 or text != '{"result":"ok"}':
                failures.append("batch %d: %d %s" % (k, r.status, text))
        conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(a.clients)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - began
    if failures:
        print("ingest.py: " + failures[0], file=sys.stderr)
        sys.exit(1)
    points = a.batches * a.points
    print(json.dumps({"points": points, "seconds": round(seconds, 3), "pointsPerSecond": round(points / seconds)}))


if __name__ == "__main__":
    main()
