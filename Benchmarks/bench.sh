#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpslog side by side with GPSBabel and GDAL's ogr2ogr on the same generated inputs: wall time, CPU time and peak
# RSS from /usr/bin/time, and the ratio peer/gpslog (above 1: gpslog is faster or smaller).
#
#   Benchmarks/bench.sh [--sizes "1000000 5000000"] [--runs 3] [--gpslog PATH] [--work DIR] [--smoke] [--only REGEX]
#
# --only runs the cases whose name matches the (awk) regular expression, and not the write budget ("postgres": the
# PostgreSQL rows alone).
# --smoke runs every case once on 2,000 points (seconds, for `make test`) and the write budget over 20 s.
# Without --gpslog it builds the release binary. Inputs are cached in the work folder (default .build-bench/,
# ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES="1000000 5000000"
RUNS=3
GPSLOG=""
WORK=".build-bench"
SMOKE=0
ONLY=""
while [ $# -gt 0 ]; do
    case "$1" in
        --sizes) SIZES="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --gpslog) GPSLOG="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --smoke) SMOKE=1; SIZES="2000"; RUNS=1; shift ;;
        --only) ONLY="$2"; shift 2 ;;
        *) echo "bench.sh: unknown argument $1" >&2; exit 64 ;;
    esac
done

# The peers and the meters, from Debian, installed when missing.
need=""
for p in gpsbabel gdal-bin time python3 chromium curl; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
    SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
    echo "Installing$need"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need
fi

if [ -z "$GPSLOG" ]; then
    swift build -c release --product gpslog >&2
    GPSLOG="$(swift build -c release --show-bin-path)/gpslog"
fi
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
OUT="$WORK/out"
RESULTS="$WORK/results.tsv"
SIZE_RESULTS="$WORK/sizes.tsv"
: > "$RESULTS"
: > "$SIZE_RESULTS"

# measure CASE TOOL COMMAND...: runs it RUNS times after clearing $OUT, keeps the best wall time (and the CPU
# and peak RSS of that run); fails loudly when the command fails.
measure() {
    local case="$1" tool="$2"; shift 2
    local best="" line
    if [ -n "$ONLY" ] && ! awk -v c="$case" -v r="$ONLY" 'BEGIN { exit !(c ~ r) }'; then return; fi
    for _ in $(seq "$RUNS"); do
        rm -rf "$OUT" && mkdir -p "$OUT"
        if ! /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >"$WORK/cmd.out" 2>"$WORK/cmd.err"; then
            echo "bench.sh: $case: $tool failed:" >&2; tail -5 "$WORK/cmd.err" >&2; exit 1
        fi
        line=$(tail -1 "$WORK/time.txt")
        if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best="$line"; fi
    done
    read -r wall user sys rss <<<"$best"
    printf '%s\t%s\t%s\t%s\t%s\n' "$case" "$tool" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" "$rss" >>"$RESULTS"
}

for n in $SIZES; do
    label=$(awk -v n="$n" 'BEGIN { if (n >= 1000000) printf "%gM", n / 1000000; else if (n >= 1000) printf "%gk", n / 1000; else print n }')
    gpx="$WORK/track-$n.gpx"; nmea="$WORK/log-$n-sentences.nmea"; db="$WORK/session-$n.sqlite"
    [ -s "$gpx" ] || python3 Benchmarks/generate.py gpx "$n" "$gpx"
    # N sentences: RMC + GGA per epoch, so N/2 fixes.
    [ -s "$nmea" ] || python3 Benchmarks/generate.py nmea "$((n / 2))" "$nmea"

    c="GPX $label -> GeoJSON"
    measure "$c" gpslog "$GPSLOG" convert "$gpx" "$OUT/t.geojson"
    measure "$c" gpsbabel gpsbabel -i gpx -f "$gpx" -o geojson -F "$OUT/t.geojson"
    measure "$c" ogr2ogr ogr2ogr -f GeoJSON "$OUT/t.geojson" "$gpx" track_points

    c="GPX $label import"
    measure "$c" gpslog "$GPSLOG" import --db "$OUT/db.sqlite" "$gpx"
    measure "$c" ogr2ogr ogr2ogr -f SQLite "$OUT/db.sqlite" "$gpx"

    # The fair peer for points: ogr2ogr's track_points layer alone (the run above also builds the tracks layer),
    # and the size of each database the last run left, in bytes per track point (the table after the timings).
    c="GPX $label points import (track_points)"
    measure "$c" gpslog "$GPSLOG" import --db "$OUT/gpslog.sqlite" "$gpx"
    [ ! -s "$OUT/gpslog.sqlite" ] || printf '%s\t%s\t%s\t%s\n' "GPX $label points into a database" gpslog \
        "$(stat -c %s "$OUT/gpslog.sqlite")" "$n" >>"$SIZE_RESULTS"
    measure "$c" ogr2ogr ogr2ogr -f SQLite "$OUT/ogr.sqlite" "$gpx" track_points
    [ ! -s "$OUT/ogr.sqlite" ] || printf '%s\t%s\t%s\t%s\n' "GPX $label points into a database" ogr2ogr \
        "$(stat -c %s "$OUT/ogr.sqlite")" "$n" >>"$SIZE_RESULTS"

    # GeoJSON and CSV imports: the track as gpslog exports it (one LineString with coordTimes; CSV rows of every
    # column), and a FeatureCollection of N Points with Overland's properties. GDAL refuses a feature over 200 MB
    # unless told otherwise (OGR_GEOJSON_MAX_OBJ_SIZE=0); it reads the CSV's columns when named.
    geojson="$WORK/track-$n.geojson"; points="$WORK/points-$n.geojson"; csv="$WORK/track-$n.csv"
    [ -s "$geojson" ] || "$GPSLOG" convert "$gpx" "$geojson" >/dev/null
    [ -s "$csv" ] || "$GPSLOG" convert "$gpx" "$csv" >/dev/null
    [ -s "$points" ] || python3 Benchmarks/generate.py points "$n" "$points"
    c="GeoJSON $label line import"
    measure "$c" gpslog "$GPSLOG" import --db "$OUT/db.sqlite" "$geojson"
    # GDAL reads a LineString's coordTimes into a string list, slowly: 135 s and 884 MB at 1M points here; at 5M it
    # had not finished after 18 minutes (4.1 GB). It is measured up to 1M.
    [ "$n" -gt 1000000 ] || measure "$c" ogr2ogr ogr2ogr --config OGR_GEOJSON_MAX_OBJ_SIZE 0 -f SQLite "$OUT/db.sqlite" "$geojson"
    c="GeoJSON $label points import"
    measure "$c" gpslog "$GPSLOG" import --db "$OUT/db.sqlite" "$points"
    measure "$c" ogr2ogr ogr2ogr -f SQLite "$OUT/db.sqlite" "$points"
    c="CSV $label import"
    measure "$c" gpslog "$GPSLOG" import --db "$OUT/db.sqlite" "$csv"
    measure "$c" ogr2ogr ogr2ogr -f SQLite "$OUT/db.sqlite" "$csv" -oo X_POSSIBLE_NAMES=longitude -oo Y_POSSIBLE_NAMES=latitude

    # KML: a gx:Track as Google Earth writes it (every when, then every gx:coord: the times wait in a scratch file
    # until their coordinates come). GPSBabel reads it into memory and writes GPX, the nearest it comes to an import.
    kml="$WORK/track-$n.kml"
    [ -s "$kml" ] || python3 Benchmarks/generate.py kml "$n" "$kml"
    c="KML $label gx:Track import"
    measure "$c" gpslog "$GPSLOG" import --db "$OUT/db.sqlite" "$kml"
    measure "$c" gpsbabel gpsbabel -i kml -f "$kml" -o gpx -F "$OUT/t.gpx"

    # The session to export: imported once, outside the measurement.
    if [ ! -s "$db" ]; then "$GPSLOG" import --db "$db" --name bench "$gpx" >/dev/null; fi
    c="session $label -> GPX"
    measure "$c" gpslog "$GPSLOG" export --db "$db" bench --format gpx --output "$OUT/t.gpx"
    measure "$c" gpsbabel gpsbabel -i gpx -f "$gpx" -o gpx -F "$OUT/t.gpx"

    # Simplification to 5 m: GEOS under both (gpslog streams Douglas-Peucker a segment and a chunk at a time; ogr2ogr's
    # -simplify is GEOS's topology-preserving simplifier on the whole line, in degrees: 0.00005 is 3.4-5.6 m here).
    c="session $label simplified 5 m -> GeoJSON"
    measure "$c" gpslog "$GPSLOG" export --db "$db" bench --format geojson --simplify 5 --output "$OUT/s.geojson"
    measure "$c" ogr2ogr ogr2ogr -f GeoJSON "$OUT/s.geojson" "$gpx" tracks -simplify 0.00005

    # sessions and show read each session's kept figures (SessionSummaries), not its rows: their time is the
    # process's, whatever the number of entries (issue 23; 10M and 30M in the main README's Performance).
    measure "sessions, $label entries" gpslog "$GPSLOG" sessions --db "$db"
    measure "show, $label-entry session" gpslog "$GPSLOG" show --db "$db" bench

    c="NMEA $label -> GPX"
    measure "$c" gpslog "$GPSLOG" convert "$nmea" "$OUT/t.gpx"
    measure "$c" gpsbabel gpsbabel -i nmea -f "$nmea" -o gpx -F "$OUT/t.gpx"

    c="record NMEA $label (replay speed=0)"
    measure "$c" gpslog "$GPSLOG" record --db "$OUT/rec.sqlite" --name bench --source "replay:$nmea?speed=0" --interval 0 --geocode off
    echo "$((n / 2))" > "$WORK/fixes-$c"
done

# A year of 1 Hz recording: 30M entries (the largest size's GPX imported as six sessions; with --smoke, six of its
# 2,000 points), then `sessions` and `show` of one of them. Their time must not grow with the entries (issue 23:
# within 50 ms at 30M). The database (3 GB at 30M) is made once and kept in the work folder.
if [ -z "$ONLY" ] || awk -v r="$ONLY" 'BEGIN { exit !("a year" ~ r) }'; then
    n=${SIZES##* }; gpx="$WORK/track-$n.gpx"; year="$WORK/year-$((n * 6)).sqlite"
    if [ ! -s "$year" ]; then
        for i in 1 2 3 4 5 6; do "$GPSLOG" import --db "$year" --name "part $i" "$gpx" >/dev/null; done
    fi
    label=$(awk -v n="$((n * 6))" 'BEGIN { if (n >= 1000000) printf "%gM", n / 1000000; else printf "%gk", n / 1000 }')
    ONLY_SAVED="$ONLY"; ONLY=""
    measure "sessions, $label entries (a year)" gpslog "$GPSLOG" sessions --db "$year"
    measure "show, one of $label entries (a year)" gpslog "$GPSLOG" show --db "$year" "part 6"
    ONLY="$ONLY_SAVED"
    # The history map of the year as a browser meets it (headless Chromium): the first view's time, bytes fetched,
    # the tab's memory, and tiles no one drew yet; printed after the table.
    rm -f "$WORK/history.tsv"
    if [ -x /usr/bin/chromium ] && [ -e /usr/share/javascript/leaflet/leaflet.js ]; then
        python3 Benchmarks/history-map.py --gpslog "$GPSLOG" --db "$year" > "$WORK/history.tsv" \
            || echo "history map: the benchmark failed" >&2
        HISTORY_LABEL="$label"
    fi
fi

# The table: per case, each tool with the ratio of its wall time (and RSS) to gpslog's.
echo
echo "gpslog benchmarks, $(date -u +%Y-%m-%d), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), best of $RUNS"
awk -F'\t' -v work="$WORK" '
    { key[NR] = $1; tool[NR] = $2; wall[NR] = $3; cpu[NR] = $4; rss[NR] = $5
      if ($2 == "gpslog") { gw[$1] = $3; gr[$1] = $5 } }
    END {
        printf "| %-36s | %-8s | %8s | %8s | %9s | %10s | %9s |\n", "case", "tool", "wall s", "cpu s", "RSS MB", "wall ratio", "RSS ratio"
        printf "|%s|%s|%s|%s|%s|%s|%s|\n", "--------------------------------------", "----------", "---------:", "---------:", "----------:", "-----------:", "----------:"
        for (i = 1; i <= NR; i++) {
            ratio = (tool[i] == "gpslog" || gw[key[i]] == 0) ? "" : sprintf("%.1fx", wall[i] / (gw[key[i]] > 0 ? gw[key[i]] : 0.01))
            rr = (tool[i] == "gpslog" || gr[key[i]] == 0) ? "" : sprintf("%.1fx", rss[i] / gr[key[i]])
            extra = ""
            if (key[i] ~ /^record/) {
                f = work "/fixes-" key[i]; getline n < f; close(f)
                extra = sprintf(" (%.0f fixes/s)", n / (wall[i] > 0 ? wall[i] : 0.01))
            }
            printf "| %-36s | %-8s | %8.2f | %8.2f | %9.1f | %10s | %9s |%s\n", key[i], tool[i], wall[i], cpu[i], rss[i] / 1024, ratio, rr, extra
        }
    }' "$RESULTS"

if [ -s "$WORK/history.tsv" ]; then
    echo
    echo "The history map, $HISTORY_LABEL entries (a year), headless Chromium:"
    awk -F'\t' 'BEGIN { printf "| %-26s | %-46s | %-6s |\n|---|---|---|\n", "figure", "measured", "goal" }
        { printf "| %-26s | %-46s | %-6s |\n", $1, $2 ($4 ? " " $4 : ""), $3 }' "$WORK/history.tsv"
fi

# Database sizes: bytes per track point, and the ratio peer/gpslog (above 1: gpslog's file is smaller).
if [ -s "$SIZE_RESULTS" ]; then
    echo
    awk -F'\t' '
        { key[NR] = $1; tool[NR] = $2; size[NR] = $3; n[NR] = $4; if ($2 == "gpslog") g[$1] = $3 }
        END {
            printf "| %-36s | %-8s | %9s | %13s | %10s |\n", "case", "tool", "MB", "bytes/entry", "size ratio"
            printf "|%s|%s|%s|%s|%s|\n", "--------------------------------------", "----------", "----------:", "--------------:", "-----------:"
            for (i = 1; i <= NR; i++) {
                ratio = (tool[i] == "gpslog" || g[key[i]] == 0) ? "" : sprintf("%.2fx", size[i] / g[key[i]])
                printf "| %-36s | %-8s | %9.1f | %13.1f | %10s |\n", key[i], tool[i], size[i] / 1e6, size[i] / n[i], ratio
            }
        }' "$SIZE_RESULTS"
fi

# The web view: the session's page in headless Chromium (Benchmarks/page-time.py), opened twice (the second
# time the server answers the long reads from its cache), with the time until the map and the charts are drawn
# and the bytes the page fetched. Goals for 1M entries: under 2 s and 5 MB.
if [ -z "$ONLY" ] || awk -v r="$ONLY" 'BEGIN { exit !("session page" ~ r) }'; then
    [ -x /usr/bin/chromium ] || { echo "bench.sh: the page rows need chromium (make test installs it)" >&2; exit 1; }
    echo
    echo "| session page            | visit  | ready ms | MB fetched | track vertices | chart points |"
    echo "|-------------------------|--------|---------:|-----------:|---------------:|-------------:|"
    for n in $SIZES; do
        db="$WORK/session-$n.sqlite"
        "$GPSLOG" serve --db "$db" --listen 127.0.0.1:0 --tiles none >"$WORK/serve.out" 2>"$WORK/serve.err" &
        serve=$!
        for _ in $(seq 300); do grep -q "Listening on http://" "$WORK/serve.out" && break; sleep 0.1; done
        base=$(sed -n 's|^Listening on \(http://[^ /]*\).*|\1|p' "$WORK/serve.out" | head -1)
        [ -n "$base" ] || { echo "bench.sh: serve did not start:" >&2; cat "$WORK/serve.err" >&2; exit 1; }
        id=$(python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])' < <(curl -s "$base/api/sessions"))
        for visit in first second; do
            python3 Benchmarks/page-time.py "$base/sessions/$id" --timeout 120 | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("| %-23s | %-6s | %8d | %10.2f | %14d | %12d |" % (sys.argv[1], sys.argv[2], r["readyMs"], r["bytes"] / 1e6,
      r["vertices"], r["chartPoints"]))' "$n entries" "$visit"
        done
        kill "$serve"; wait "$serve" 2>/dev/null || true
    done
fi

# PostgreSQL with PostGIS: `sync` of the first size's session (entries/s), and `serve` ingestion of 200-point Overland
# batches into SQLite and into PostgreSQL side by side (Benchmarks/postgres.sh; a throwaway cluster).
if [ -z "$ONLY" ] || awk -v r="$ONLY" 'BEGIN { exit !("postgres" ~ r) }'; then
    echo
    Benchmarks/postgres.sh --gpslog "$GPSLOG" --session "$WORK/session-${SIZES%% *}.sqlite" --work "$WORK/postgres" \
        $([ "$SMOKE" = 1 ] && echo "--batches 20")
fi

# The SD card's write budget: bytes written per hour of 1 Hz recording, beside gpxlogger (real time: 4 minutes).
[ -z "$ONLY" ] || exit 0
echo
Benchmarks/write-budget.sh --gpslog "$GPSLOG" --work "$WORK/write-budget" $([ "$SMOKE" = 1 ] && echo --smoke)
