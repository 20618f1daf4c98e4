#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PostgreSQL rows of `make bench`: `gpslog sync` throughput (entries per second) of a session into a throwaway
# PostgreSQL 15 + PostGIS cluster, and `serve` ingestion (points per second, 200-point Overland batches from
# Benchmarks/ingest.py, 4 connections) into SQLite and into PostgreSQL, side by side.
#
#   Benchmarks/postgres.sh --gpslog PATH --session DB.sqlite --work DIR [--batches 500]
#
# The cluster runs in a temporary folder of /tmp (as the user postgres when run as root: initdb refuses root), on a
# Unix socket there, with fsync on (the numbers are those of a real server), and is stopped and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

GPSLOG=""; SESSION=""; WORK=""; BATCHES=500
while [ $# -gt 0 ]; do
    case "$1" in
        --gpslog) GPSLOG="$2"; shift 2 ;;
        --session) SESSION="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --batches) BATCHES="$2"; shift 2 ;;
        *) echo "postgres.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done
[ -n "$GPSLOG" ] && [ -s "$SESSION" ] && [ -n "$WORK" ] || { echo "usage: postgres.sh --gpslog PATH --session DB --work DIR" >&2; exit 64; }
BIN=/usr/lib/postgresql/15/bin
[ -x "$BIN/initdb" ] || { echo "postgres.sh: needs postgresql-15 and postgresql-15-postgis-3 (make test installs them)" >&2; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
# The cluster in a folder of /tmp: as root it runs as the user postgres (initdb refuses root), who may not enter a
# checkout under a private home.
CLUSTER=$(mktemp -d /tmp/gpslog-bench-pg-XXXXXX)
mkdir -p "$CLUSTER/data" "$CLUSTER/run"
as=()
if [ "$(id -u)" = 0 ]; then
    user=$(getent passwd postgres >/dev/null && echo postgres || echo nobody)
    chmod 711 "$CLUSTER"; chown "$user" "$CLUSTER/data" "$CLUSTER/run"
    as=(runuser -u "$user" --)
fi
trap '"${as[@]}" "$BIN/pg_ctl" -D "$CLUSTER/data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$CLUSTER"' EXIT
(cd / && "${as[@]}" "$BIN/initdb" -D "$CLUSTER/data" -U gpslog --auth-local=trust -E UTF8 --locale=C) >"$WORK/initdb.log" 2>&1 \
    || { cat "$WORK/initdb.log" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd / && "${as[@]}" "$BIN/pg_ctl" -D "$CLUSTER/data" -l "$CLUSTER/data/server.log" -w -t 60 \
    -o "-k $CLUSTER/run -p $port -h 127.0.0.1 -c shared_buffers=512MB -c max_wal_size=4GB" start) >/dev/null \
    || { cat "$CLUSTER/data/server.log" >&2; exit 1; }
psql() { /usr/bin/psql -X -q -At -h "$CLUSTER/run" -p "$port" -U gpslog "$@"; }
psql -d postgres -c "CREATE DATABASE sync" -c "CREATE DATABASE serve"
url() { echo "postgres://gpslog@/$1?host=$CLUSTER/run&port=$port"; }

# Sync: the session's entries into an empty database (a copy of the SQLite file: sync keeps its cursor there).
cp "$SESSION" "$WORK/sync.sqlite"
entries=$(sqlite3 "$WORK/sync.sqlite" 'SELECT COUNT(*) FROM Entries')
/usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$GPSLOG" sync --db "$WORK/sync.sqlite" "$(url sync)" >"$WORK/sync.out" 2>"$WORK/sync.err" \
    || { cat "$WORK/sync.err" >&2; exit 1; }
read -r wall user sys rss <"$WORK/time.txt"
stored=$(psql -d sync -c "SELECT count(*) FROM entries")
[ "$stored" = "$entries" ] || { echo "postgres.sh: sync stored $stored of $entries entries" >&2; exit 1; }
size=$(psql -d sync -c "SELECT pg_database_size('sync') / 1048576")

# The web view's reads of the synced session, from the SQLite file and from PostgreSQL (serve --store): the
# sessions list, the chart (5,000 samples), and the statistics (kept per-day figures in both). Each the best of 3
# requests after a first one, in seconds; and the first request of the list after the sync (PostgreSQL counts the
# days the sync wrote then).
view_times() {
    local name="$1"; shift
    "$GPSLOG" serve --listen 127.0.0.1:0 --tiles none "$@" >"$WORK/view-$name.out" 2>"$WORK/view-$name.err" &
    local pid=$! base="" _ path best t id
    for _ in $(seq 300); do grep -q "Listening on http://" "$WORK/view-$name.out" && break; sleep 0.1; done
    base=$(sed -n 's|^Listening on \(http://[^ /]*\).*|\1|p' "$WORK/view-$name.out" | head -1)
    [ -n "$base" ] || { echo "postgres.sh: serve ($name) did not start:" >&2; cat "$WORK/view-$name.err" >&2; exit 1; }
    first=$(curl -sf -o /dev/null -w '%{time_total}' "$base/api/sessions")
    id=$(curl -sf "$base/api/sessions" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')
    for path in /api/sessions "/api/sessions/$id/entries" /api/stats; do
        curl -sf -o /dev/null "$base$path" || { kill "$pid"; echo "postgres.sh: $name $path failed" >&2; exit 1; }
        best=""
        for _ in 1 2 3; do
            t=$(curl -sf -o /dev/null -w '%{time_total}' "$base$path")
            best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
        done
        printf '%s ' "$best"
    done
    printf '%s ' "$first"
    kill "$pid"; wait "$pid" 2>/dev/null || true
}
read -r sqlite_list sqlite_chart sqlite_stats sqlite_first <<<"$(view_times sqlite --db "$WORK/sync.sqlite")"
noted=$(psql -d sync -c "SELECT count(*) FROM day_figures_stale")
read -r pg_list pg_chart pg_stats pg_first <<<"$(view_times postgres --db "$WORK/view.sqlite" --store "$(url sync)")"
kept=$(psql -d sync -c "SELECT coalesce(sum(entries), 0) FROM day_figures")
[ "$kept" = "$stored" ] || { echo "postgres.sh: the kept days count $kept entries of $stored" >&2; exit 1; }

# Serve: the same client against each store, a fresh database each.
# serve_rate NAME PROCESSES ARGS...: starts PROCESSES serve processes with ARGS, posts through all of them at once.
serve_rate() {
    local name="$1" processes="$2"; shift 2
    local pids=() bases=() i base
    for i in $(seq "$processes"); do
        "$GPSLOG" serve --listen 127.0.0.1:0 "$@" >"$WORK/serve-$name-$i.out" 2>"$WORK/serve-$name-$i.err" &
        pids+=($!)
        for _ in $(seq 300); do grep -q "Listening on http://" "$WORK/serve-$name-$i.out" && break; sleep 0.1; done
        base=$(sed -n 's|^Listening on \(http://[^ /]*\).*|\1|p' "$WORK/serve-$name-$i.out" | head -1)
        [ -n "$base" ] || { echo "postgres.sh: serve ($name) did not start:" >&2; cat "$WORK/serve-$name-$i.err" >&2; exit 1; }
        bases+=("$base/")
    done
    python3 Benchmarks/ingest.py "${bases[@]}" --batches "$BATCHES" --points 200 --clients 4 --devices 8 \
        >"$WORK/ingest-$name.json" || { kill "${pids[@]}"; exit 1; }
    kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pointsPerSecond"])' "$WORK/ingest-$name.json"
}
sqlite_rate=$(serve_rate sqlite 1 --db "$WORK/serve.sqlite" --no-view)
postgres_rate=$(serve_rate postgres 1 --db "$WORK/unused.sqlite" --store "$(url serve)")
received=$(psql -d serve -c "SELECT count(*) FROM entries")
[ "$received" = "$((BATCHES * 200))" ] || { echo "postgres.sh: serve stored $received of $((BATCHES * 200))" >&2; exit 1; }
psql -d postgres -c "CREATE DATABASE serve2"
postgres2_rate=$(serve_rate postgres2 2 --db "$WORK/unused.sqlite" --store "$(url serve2)")
received=$(psql -d serve2 -c "SELECT count(*) FROM entries")
[ "$received" = "$((BATCHES * 200))" ] || { echo "postgres.sh: two serves stored $received of $((BATCHES * 200))" >&2; exit 1; }

echo "| PostgreSQL (PostGIS)                  | figure |"
echo "|---------------------------------------|--------|"
printf '| sync %-32s | %6.0f entries/s (%.1f s, %.0f MB RSS, database %s MB) |\n' "$entries entries" \
    "$(awk -v n="$entries" -v w="$wall" 'BEGIN { print n / (w > 0 ? w : 0.01) }')" "$wall" "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$size"
for row in "sessions list, first after the sync ($noted days noted):$sqlite_first:$pg_first" "sessions list:$sqlite_list:$pg_list" "chart, 5,000 samples:$sqlite_chart:$pg_chart" \
    "statistics:$sqlite_stats:$pg_stats"; do
    IFS=: read -r what a b <<<"$row"
    printf '| web view %-28s | SQLite %.3f s, PostgreSQL %.3f s (%.1fx) |\n' "$what" "$a" "$b" \
        "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / (a > 0 ? a : 0.001) }')"
done
printf '| serve ingestion, SQLite               | %6d points/s |\n' "$sqlite_rate"
printf '| serve ingestion, PostgreSQL           | %6d points/s |\n' "$postgres_rate"
printf '| serve ingestion, PostgreSQL, 2 serves | %6d points/s |\n' "$postgres2_rate"
