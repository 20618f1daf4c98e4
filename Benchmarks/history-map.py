#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The history map's figures on a database, as a user's browser meets them.

Starts `gpslog serve` on the database (a random loopback port, no basemap) and headless Chromium, opens /history
and waits until Leaflet says every tile of the first view has loaded; then asks the server for tiles that no one
drew yet. Prints one tab-separated line per figure: name, value, goal.

- first draw: from the navigation's start to the history layer's `load` (every tile in view drawn), in the page.
- fetched: the bytes of every response of the page until then (HTML, scripts, tiles), as Chromium counted them.
- tab memory: the renderer process's proportional set size (PSS) and its JavaScript heap, after the first draw.
- tile, not cached: the server's answer time for each tile of a 3x3 block at the tracks' centre, at every zoom from
  0 to 18 but the first view's, each asked once, deepest first (a kept tile is drawn once; these were not in view);
  then the worst of each zoom past 13 (never kept: drawn from the entries at every request). The browser is closed
  before these, so that they measure the server alone.

Chromium is driven over --remote-debugging-pipe (the DevTools protocol as NUL-separated JSON on fds 3 and 4), so
nothing beyond Python's standard library is needed: Debian's python3 has no WebSocket module.
"""
import argparse
import json
import math
import os
import re
import select
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


class DevTools:
    """One page target of a Chromium started with --remote-debugging-pipe."""

    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4 (moved out of the way first: a pipe's own fd
        # may be 3 or 4; the child's other fds are closed after this runs, except those two).
        def fds():
            r, w = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--window-size=1280,800", "--user-data-dir=" + profile, "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def send(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self, timeout):
        """The next message, or None after `timeout` seconds."""
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.from_browser], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise SystemExit("chromium ended")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        wanted = self.send(method, session, **params)
        while True:
            message = self.read(120)
            if message is None:
                raise SystemExit(f"chromium did not answer {method}")
            if message.get("id") == wanted:
                if "error" in message:
                    raise SystemExit(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def page(self, method, **params):
        return self.call(method, self.session, **params)

    def evaluate(self, expression):
        return self.page("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def close(self):
        """Kills every process of the browser (its own session and process group) and waits until they are gone."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(in_group(pid, self.process.pid) for pid in os.listdir("/proc")):
            time.sleep(0.05)


def in_group(pid, group):
    """True when /proc/PID is a live process of process group `group`."""
    if not pid.isdigit():
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0] != "Z" and int(fields[2]) == group
    except (OSError, IndexError, ValueError):
        return False


def parent_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def renderer_memory(browser_pid):
    """PSS of the largest renderer process descending from `browser_pid`, in bytes."""
    best = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            # Chromium rewrites its command line (one string, not NUL-separated arguments).
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--type=renderer" not in f.read():
                    continue
            ancestor = int(pid)
            while ancestor > 1 and ancestor != browser_pid:
                ancestor = parent_of(ancestor)
            if ancestor != browser_pid:
                continue
            with open(f"/proc/{pid}/smaps_rollup") as f:
                pss = int(re.search(r"^Pss:\s+(\d+) kB", f.read(), re.M).group(1)) * 1024
            best = max(best, pss)
        except (OSError, AttributeError, ValueError, IndexError):
            continue
    return best


def tile_of(lat, lon, z):
    n = 2 ** z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return min(max(x, 0), n - 1), min(max(y, 0), n - 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpslog", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="gpslog-history-bench-")
    serve = subprocess.Popen(
        [args.gpslog, "serve", "--db", args.db, "--listen", "127.0.0.1:0", "--tiles", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    browser = None
    try:
        base = None
        for line in serve.stdout:
            if line.startswith("Listening on "):
                base = line.split()[2].rstrip("/")
                break
        if not base:
            raise SystemExit("serve did not start")

        browser = DevTools(args.chromium, work + "/profile")
        browser.page("Network.enable")
        browser.page("Page.enable")
        browser.page("Performance.enable")
        browser.page("Network.setCacheDisabled", cacheDisabled=True)
        browser.page("Page.navigate", url=base + "/history")
        deadline = time.monotonic() + 600
        ready = None
        while time.monotonic() < deadline:
            ready = browser.evaluate(
                "document.getElementById('map') && document.getElementById('map').dataset.ready === 'true'"
                " ? performance.now() : null")
            if ready is not None:
                break
            time.sleep(0.02)
        if ready is None:
            raise SystemExit("the history map did not finish its first view in 10 minutes")
        # Every response's bytes until the first view was drawn.
        browser.call("Runtime.evaluate", browser.session, expression="1")
        fetched = sum(e["params"].get("encodedDataLength", 0) for e in browser.events
                      if e.get("method") == "Network.loadingFinished")
        tiles_in_view = int(browser.evaluate("Number(document.getElementById('map').dataset.historyLoaded || 0)"))
        metrics = {m["name"]: m["value"] for m in browser.page("Performance.getMetrics")["metrics"]}
        heap = metrics.get("JSHeapUsedSize", 0)
        pss = renderer_memory(browser.process.pid)
        zoom = int(browser.evaluate("document.querySelector('.leaflet-tile-loaded[src*=\"/history/tiles/\"]')"
                                    " ? Number(document.querySelector('.leaflet-tile-loaded[src*=\"/history/tiles/\"]')"
                                    ".src.match(/tiles\\/(\\d+)\\//)[1]) : 0"))
        bounds = browser.evaluate("document.body.dataset.bounds || ''")

        print(f"history first draw\t{ready / 1000:.2f} s\t1 s\t({tiles_in_view} tiles at zoom {zoom})")
        print(f"history fetched\t{fetched / 1e6:.2f} MB\t2 MB")
        print(f"history tab memory\t{pss / 1e6:.0f} MB PSS, JS heap {heap / 1e6:.1f} MB\t150 MB")

        # The tiles' figure is the server's time: the browser, which keeps a core busy for a while after its first
        # view on this 2-core machine, is closed first.
        browser.close()
        browser = None
        if bounds:
            s, w, n, e = map(float, bounds.split(","))
            lat, lon = (s + n) / 2, (w + e) / 2
            times = []
            for z in [z for z in range(18, -1, -1) if z != zoom]:
                cx, cy = tile_of(lat, lon, z)
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        x, y = cx + dx, cy + dy
                        if not (0 <= x < 2 ** z and 0 <= y < 2 ** z):
                            continue
                        started = time.monotonic()
                        with urllib.request.urlopen(f"{base}/history/tiles/{z}/{x}/{y}.png", timeout=600) as r:
                            r.read()
                        times.append((time.monotonic() - started, z))
            times.sort()
            worst, worst_zoom = times[-1]
            median = times[len(times) // 2][0]
            print(f"history tile, not cached\t{median * 1000:.0f} ms median, {worst * 1000:.0f} ms worst (zoom "
                  f"{worst_zoom}), {len(times)} tiles\t50 ms")
            # The zooms past the kept ones, drawn from the entries at every request: the worst of each zoom.
            deep = {}
            for t, z in times:
                if z > 13:
                    deep[z] = max(deep.get(z, 0), t)
            if deep:
                print("history tile past zoom 13, worst\t" + ", ".join(
                    f"{z}: {deep[z] * 1000:.0f} ms" for z in sorted(deep)) + "\t50 ms")
    finally:
        if browser:
            browser.close()
        serve.kill()
        serve.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
