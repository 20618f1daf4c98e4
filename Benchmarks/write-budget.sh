#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The SD card's write budget: bytes written per hour of 1 Hz recording, gpslog beside gpsd's gpxlogger on the same
# real-time gpsfake replay. Each recorder's /proc/PID/io write_bytes (bytes it made the kernel write to storage) is
# read at the start and the end of a timed window and extrapolated to an hour; the database, WAL and GPX file sizes
# are read at both ends too.
#
#   Benchmarks/write-budget.sh [--gpslog PATH] [--minutes 4] [--work DIR] [--serve] [--smoke] [-- RECORD OPTIONS...]
#
# --serve also runs `gpslog serve` on the database (the web view, no basemap), whose background drawing keeps the
# history map's tiles as the recorder's writes drop them, and prints its bytes too: what the map costs the card.
#
# Options after -- go to `gpslog record` (e.g. -- --commit-every 1s to see the old behaviour). --smoke runs a
# 20-second window (for `make test`: the harness must not rot; its numbers mean little).
set -euo pipefail
cd "$(dirname "$0")/.."

MINUTES=4
GPSLOG=""
WORK=".build-bench/write-budget"
WINDOW=""
SERVE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --gpslog) GPSLOG="$2"; shift 2 ;;
        --minutes) MINUTES="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --smoke) WINDOW=20; shift ;;
        --serve) SERVE=1; shift ;;
        --) shift; break ;;
        *) echo "write-budget.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done
WINDOW="${WINDOW:-$((MINUTES * 60))}"
for tool in /usr/bin/gpsfake /usr/bin/gpxlogger; do
    [ -x "$tool" ] || { echo "write-budget.sh: $tool is missing (Debian: gpsd-tools, gpsd-clients)" >&2; exit 1; }
done
if [ -z "$GPSLOG" ]; then
    swift build -c release --product gpslog >&2
    GPSLOG="$(swift build -c release --show-bin-path)/gpslog"
fi
rm -rf "$WORK" && mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
DB="$WORK/rec.sqlite"
GPX="$WORK/gpxlogger.gpx"

# One epoch (RMC + GGA) a second for the window, a warm-up before it and a margin after; gpsfake sends one
# sentence every -c seconds, so -c 0.5 is 1 Hz in real time.
python3 Benchmarks/generate.py nmea "$((WINDOW + 120))" "$WORK/replay.nmea"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 -- "-$p" 2>/dev/null || kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
# gpsfake is Python and needs the system interpreter's gps module; setsid makes it the leader of a group that
# also holds the gpsd it starts, so cleanup ends both.
setsid /usr/bin/python3 /usr/bin/gpsfake -1 -q -P "$port" -c 0.5 "$WORK/replay.nmea" >"$WORK/gpsfake.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.1
done

setsid "$GPSLOG" record --db "$DB" --source "gpsd://127.0.0.1:$port" "$@" >"$WORK/record.out" 2>"$WORK/record.err" &
rec=$!
pids+=($rec)
setsid /usr/bin/gpxlogger -f "$GPX" "127.0.0.1:$port" >"$WORK/gpxlogger.out" 2>&1 &
gpx=$!
pids+=($gpx)

srv=""
if [ "$SERVE" = 1 ]; then
    # The database exists once the recorder has written its session (below); serve opens it then.
    for _ in $(seq 600); do [ -s "$DB" ] && break; sleep 0.1; done
    setsid "$GPSLOG" serve --db "$DB" --listen 127.0.0.1:0 --tiles none >"$WORK/serve.out" 2>"$WORK/serve.err" &
    srv=$!
    pids+=($srv)
fi

# The window opens once both have written their first point (the session exists, the GPX file has a trkpt).
entries() { "$GPSLOG" status --db "$DB" --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin).get("entries", 0))' 2>/dev/null || echo 0; }
for _ in $(seq 600); do
    if [ "$(entries)" -gt 0 ] && grep -q '<trkpt' "$GPX" 2>/dev/null; then break; fi
    kill -0 "$rec" 2>/dev/null || { echo "write-budget.sh: gpslog record ended:" >&2; tail -5 "$WORK/record.err" >&2; exit 1; }
    sleep 0.1
done
[ "$(entries)" -gt 0 ] || { echo "write-budget.sh: no entry after 60 s" >&2; exit 1; }

written() { awk '/^write_bytes/ { print $2 }' "/proc/$1/io"; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
r0=$(written "$rec"); g0=$(written "$gpx"); e0=$(entries); s0=$([ -n "$srv" ] && written "$srv" || echo 0)
db0=$(size "$DB"); wal0=$(size "$DB-wal"); gf0=$(size "$GPX"); p0=$(grep -c "<trkpt" "$GPX" || true)
sleep "$WINDOW"
r1=$(written "$rec"); g1=$(written "$gpx"); e1=$(entries); s1=$([ -n "$srv" ] && written "$srv" || echo 0)
tiles=$([ -n "$srv" ] && python3 -c "
import sqlite3, sys
db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
print(db.execute('SELECT count(*) FROM HistoryTiles').fetchone()[0])" "$DB" 2>/dev/null || echo "?")
db1=$(size "$DB"); wal1=$(size "$DB-wal"); gf1=$(size "$GPX"); p1=$(grep -c "<trkpt" "$GPX" || true)
# Pages a commit: the WAL's frames since it last started over (those carrying its header's salts), and the
# commits among them (frames with a database size: the last frame of each transaction).
wal=$(python3 - "$DB-wal" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
size = struct.unpack('>I', data[8:12])[0]
salts = data[16:24]
frames = commits = 0
off = 32
while off + 24 + size <= len(data) and data[off + 8:off + 16] == salts:
    frames += 1
    commits += struct.unpack('>I', data[off + 4:off + 8])[0] != 0
    off += 24 + size
print(f"{frames} {commits} {size}")
PY
)
read -r frames commits pagesize <<<"$wal"
"$GPSLOG" stop --db "$DB" >/dev/null 2>&1 || true
wait "$rec" || true

hour() { awk -v b="$1" -v w="$WINDOW" 'BEGIN { printf "%.2f", b * 3600 / w / 1e6 }'; }
echo
echo "write budget, 1 Hz gpsfake replay, ${WINDOW}-s window extrapolated to an hour ($(date -u +%Y-%m-%d)); record $*"
printf '| %-10s | %14s | %12s | %s |\n' "tool" "written MB/h" "rows, points" "file growth in the window"
printf '|%s|%s|%s|%s|\n' "------------" "---------------:" "-------------:" "---"
printf '| %-10s | %14s | %12s | database %+d B, WAL %+d B |\n' gpslog "$(hour $((r1 - r0)))" "$((e1 - e0))" \
    "$((db1 - db0))" "$((wal1 - wal0))"
if [ -n "$srv" ]; then
    kill -0 "$srv" 2>/dev/null || { echo "write-budget.sh: gpslog serve ended:" >&2; tail -5 "$WORK/serve.err" >&2; exit 1; }
    printf '| %-10s | %14s | %12s | %s tiles kept at the end |\n' "gpslog serve" "$(hour $((s1 - s0)))" "" "$tiles"
fi
printf '| %-10s | %14s | %12s | GPX %+d B |\n' gpxlogger "$(hour $((g1 - g0)))" "$((p1 - p0))" "$((gf1 - gf0))"
awk -v f="$frames" -v c="$commits" -v p="$pagesize" 'BEGIN {
    printf "gpslog WAL since its last checkpoint: %d commits, %d pages of %d bytes (%.1f pages a commit)\n", c, f, p, c ? f / c : 0 }'
