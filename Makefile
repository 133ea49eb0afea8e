# accessoryd — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
## The release build: linked with --static-swift-stdlib in its own scratch folder. The demo, the
## benchmarks, `make install` and `make deb` all use it (one release build in CI).
STATIC = --static-swift-stdlib --scratch-path .build-static
## The static release build's folder, and the built programs `install` copies (RELEASE_BIN=folder
## to install other builds).
STATIC_BIN = $(shell $(SWIFT) build -c release $(STATIC) --show-bin-path 2>/dev/null)
RELEASE_BIN ?= $(STATIC_BIN)
.PHONY: deps bench-deps build test docs-check remote-bench python-test tools-test test-race lint format units demo bench micro-bench loop-bench ops-bench serial-bench soak soak-ci fuzz clean \
	release link-order install install-check deb deb-check footprint cost-curve systemd-test

deps:
	@scripts/install-deps.sh

## What `make bench` compares accessoryd with (socat, ser2net), installed only when missing.
bench-deps:
	@scripts/install-deps.sh --bench

build: deps
	$(SWIFT) build

## The whole test suite (Swift Testing). Installs what is missing first.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel
	@# The udev monitor tests send fake udevd messages: only inside a private network namespace.
	ACCESSORYD_HOST_NETNS="$$(readlink /proc/self/ns/net)" unshare -rn \
		$(SWIFT) test --skip-build --no-parallel --filter HotplugNetlink
	@# The daemon end to end once more with `threads: {control: own}` (clients on a second loop thread).
	ACCESSORYD_IT_CONTROL_THREAD=own $(SWIFT) test --skip-build --no-parallel --filter IntegrationTests
	@# The man pages render without warnings; `make install DESTDIR=…` installs exactly the listed
	@# files (here with the debug build's programs: the list is what is checked).
	@scripts/check-man.sh
	@scripts/check-install.sh "$$($(SWIFT) build --show-bin-path)"
	@$(MAKE) --no-print-directory python-test
	@$(MAKE) --no-print-directory tools-test
	SWIFT=$(SWIFT) $(PYTHON) scripts/docs-check.py --products "$$($(SWIFT) build --show-bin-path)"

## Dead relative links in README.md, docs/*.md and python/*.md; references to a section whose
## heading is gone, anywhere in the tree (the forms are listed in scripts/docs-check.py);
## commands in README.md that no longer exist (accessoryctl subcommands and options, accessoryd
## options, make targets); and a module graph in docs/architecture.md that is not what
## scripts/module-graph.py makes of Package.swift. python/tests/test_docs_check.py shows each fails.
docs-check:
	$(SWIFT) build --product accessoryctl
	$(SWIFT) build --product accessoryd
	$(SWIFT) build --product accessory-sim
	SWIFT=$(SWIFT) $(PYTHON) scripts/docs-check.py --products "$$($(SWIFT) build --show-bin-path)"

## Debian's interpreter: scripts/install-deps.sh installs pytest, jsonschema, mypy and pyserial for it.
PYTHON ?= /usr/bin/python3

## The Python client: `mypy --strict`, then its pytest suite against the built accessoryd,
## accessory-sim and accessoryctl. Any pytest failure fails the target, including exit status 5 (no test ran);
## the suite's fixtures raise, never skip, when the products are missing.
python-test:
	$(SWIFT) build --product accessoryd
	$(SWIFT) build --product accessory-sim
	$(SWIFT) build --product accessoryctl
	cd python && $(PYTHON) -m mypy --strict accessoryd
	ACCESSORYD_PRODUCTS="$$($(SWIFT) build --show-bin-path)" $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

## esptool and labgrid (from PyPI, pinned in python/tools-tests/requirements-tools.txt, in the
## venv scripts/venv-tools.sh makes under .build) against accessory-sim and the daemon, over
## RFC 2217 and raw TCP (ser2net's accepters, and accessoryd's own).
tools-test:
	$(SWIFT) build --product accessoryd
	$(SWIFT) build --product accessory-sim
	$(SWIFT) build --product accessoryctl
	ACCESSORYD_TOOLS_VENV="$$(scripts/venv-tools.sh)" ACCESSORYD_PRODUCTS="$$($(SWIFT) build --show-bin-path)" \
		$(PYTHON) -m pytest -q -p no:cacheprovider python/tools-tests

## The race-prone suites under ThreadSanitizer, serially.
test-race: deps
	$(SWIFT) test --sanitize=thread --no-parallel --scratch-path .build-tsan \
		--filter 'IOLoopTests|OperationsTests|TransportsTests|ControlServerTests|SimulatorTests'

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests bench soak fuzz

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests bench soak fuzz

## The systemd units: `systemd-analyze verify` (any output fails) and the hardening score
## (`security --offline=true`, exposure 2.0 or lower). Needs the built accessoryd.
units:
	$(SWIFT) build --product accessoryd
	@scripts/check-units.sh "$$($(SWIFT) build --show-bin-path)"

## Starts the daemon of the release build that is installed and packaged (`make release`: one
## release build for the demo, `make footprint`, `make bench` and `make deb`) on its embedded
## default (simulated accessories) and runs a short accessoryctl session against it.
demo: release
	@scripts/demo.sh "$(RELEASE_BIN)"

## accessoryd beside direct, socat and ser2net (about 5 minutes): prints the table and writes
## bench/results/latest.md. Pass flags with BENCH_ARGS="--requests 5000".
bench: bench-deps release
	SWIFT=$(SWIFT) SWIFT_BUILD_FLAGS="$(STATIC)" scripts/compare-bench.sh $(BENCH_ARGS)

## What the installed programs cost (docs/packaging.md, "Footprint"): stripped sizes, start-up to
## READY=1 with 16 accessories, memory after 64 clients at once; of the `make release` build.
footprint: bench-deps release
	python3 bench/footprint/footprint.py "$(RELEASE_BIN)" $(FOOTPRINT_ARGS)

## How the daemon's cost grows from 1 to 1,000 accessories, clients, subscribers and views, and
## start-up, reload and shutdown with 1,000 accessories (docs/performance.md, "The cost curve"):
## about 6 minutes; rewrites docs/cost-curve.{md,png,json} and the table in docs/performance.md.
## CURVE_ARGS="--smoke" for a quick look (1 s points; nothing is rewritten without --out).
CURVE_ARGS ?= --out docs
cost-curve: release
	@scripts/install-deps.sh --curve
	$(PYTHON) bench/cost-curve/cost_curve.py "$(RELEASE_BIN)" $(CURVE_ARGS)

## What the SSH hop of `--host ssh://` costs: transact p50 local, through dial-stdio, through ssh
## (with and without ControlMaster), and whole commands; a throwaway sshd on 127.0.0.1.
remote-bench: deps
	$(SWIFT) build -c release --product accessoryd
	$(SWIFT) build -c release --product accessory-sim
	$(SWIFT) build -c release --product accessoryctl
	$(SWIFT) build -c release --product remote-bench
	"$$($(SWIFT) build -c release --show-bin-path)/remote-bench" $(REMOTE_BENCH_ARGS)

## The component micro-benchmarks.
micro-bench: loop-bench ops-bench serial-bench

loop-bench:
	$(SWIFT) run -c release loop-bench

ops-bench:
	$(SWIFT) run -c release ops-bench

serial-bench:
	$(SWIFT) run -c release serial-bench

## The soak: 64 clients, random requests, kills, cancels, unplugs; checks the invariants.
## SOAK_SECONDS sets the measured time; SOAK_FLAGS passes more (see `soak --help`).
SOAK_SECONDS ?= 300
SOAK_FLAGS ?=
## The daemon is the debug build (assertions on); the soak itself is built for release so that
## its own timing (late answers 150 ms after a timeout) holds under load.
SOAK = "$$($(SWIFT) build -c release --show-bin-path)/soak"
soak: deps
	$(SWIFT) build --product accessoryd
	$(SWIFT) build -c release --product soak
	$(SOAK) --products "$$($(SWIFT) build --show-bin-path)" --seconds $(SOAK_SECONDS) $(SOAK_FLAGS)

## CI's soak: 60 s on the plain daemon, then shorter runs on ThreadSanitizer and AddressSanitizer
## builds of the daemon (the soak program is the same release build).
## No sanitizer options or suppressions are needed: the daemon's log is scanned for reports,
## TSan makes it exit 66 after one, and LeakSanitizer (explicitly on) checks leaks at its exit.
SOAK_CI_SANITIZER_SECONDS ?= 20
soak-ci: deps
	$(SWIFT) build --product accessoryd
	$(SWIFT) build -c release --product soak
	$(SOAK) --products "$$($(SWIFT) build --show-bin-path)" --seconds 60
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan --product accessoryd
	$(SOAK) --seconds $(SOAK_CI_SANITIZER_SECONDS) \
		--daemon "$$($(SWIFT) build --sanitize=thread --scratch-path .build-tsan --show-bin-path)/accessoryd"
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product accessoryd
	ASAN_OPTIONS=detect_leaks=1 $(SOAK) --seconds $(SOAK_CI_SANITIZER_SECONDS) --no-rss-check \
		--daemon "$$($(SWIFT) build --sanitize=address --scratch-path .build-asan --show-bin-path)/accessoryd"

## libFuzzer targets (fuzz/<target>/main.swift) on the JSON-RPC decoder, the framers, the telnet/RFC 2217 parser and the
## config decoder, FUZZ_SECONDS each (default 60), from the seeds in fuzz/corpus. See fuzz/run.sh.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

## The version, written once in Sources/AccessoryVersion/AccessoryVersion.swift.
VERSION := $(shell sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/AccessoryVersion/AccessoryVersion.swift)

## Installation (docs/packaging.md). The programs are the release build linked with
## --static-swift-stdlib (its own scratch path, so it does not rebuild the dynamic release build
## `make bench` uses): they run without a Swift toolchain.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/accessoryd
MANDIR ?= $(DATADIR)/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
PROGRAMS = accessoryd accessoryctl accessory-sim

## libstdc++ is linked statically into the release build (docs/packaging.md, "Footprint": about
## 1 MiB less resident, one dependency fewer). The toolchain's link line asks for -lstdc++, and lld
## searches the build folder before gcc's: a link to the static archive there is what it finds.
release: deps
	@archive="$$(gcc -print-file-name=libstdc++.a)"; \
	if [ ! -f "$$archive" ]; then echo "libstdc++.a not found (Debian: apt-get install libstdc++-12-dev)" >&2; exit 1; fi; \
	mkdir -p "$(STATIC_BIN)" && ln -sfn "$$archive" "$(STATIC_BIN)/libstdc++.a"
	for p in $(PROGRAMS); do $(SWIFT) build -c release $(STATIC) --product $$p || exit 1; done

## Profiles the release daemon under callgrind and rewrites packaging/accessoryd.order, the
## functions the linker places side by side (docs/packaging.md, "Footprint"), then relinks.
link-order: release
	python3 bench/footprint/link-order.py "$(STATIC_BIN)"
	rm -f $(foreach p,$(PROGRAMS),"$(STATIC_BIN)/$(p)")
	$(MAKE) --no-print-directory release

## Installs into $(DESTDIR)$(PREFIX); never overwrites an existing $(SYSCONFDIR)/accessoryd/accessoryd.yaml.
install: $(if $(filter command line,$(origin RELEASE_BIN)),,release)
	@scripts/install.sh "$(RELEASE_BIN)" "$(DESTDIR)" "$(BINDIR)" "$(SYSCONFDIR)" "$(DOCDIR)" "$(MANDIR)" \
		"$(UNITDIR)" "$(UDEVRULESDIR)" "$(BASHCOMPDIR)" "$(ZSHCOMPDIR)" "$(FISHCOMPDIR)"

## `make install DESTDIR=<scratch>` installs exactly the files in scripts/install-files.txt.
install-check: release
	@scripts/check-install.sh "$(RELEASE_BIN)"

## The Debian package (docs/packaging.md): build/accessoryd_$(VERSION)_<arch>.deb, checked by lintian.
deb: release
	@scripts/install-deps.sh --deb
	@scripts/make-deb.sh "$(RELEASE_BIN)" "$(VERSION)"

## CI's package check: lintian, then the package's programs run from a scratch root with the
## Swift toolchain hidden (scripts/check-deb.sh).
deb-check: deb
	@scripts/check-deb.sh "build/accessoryd_$(VERSION)_$$(dpkg --print-architecture).deb"

## The Debian package under a real systemd (docs/packaging.md, "Under systemd"): a Debian 12
## container booted with systemd as PID 1 (its root made once by debootstrap and kept in
## .build-systemd/), the package installed with apt, every feature checked under the shipped
## units, then an upgrade to a higher version, remove and purge. Needs root; a few minutes.
ARCH := $(shell dpkg --print-architecture 2>/dev/null)
## The package of `make deb` is made again only when it is older than what goes into it (in CI,
## `make deb-check` has just made it).
DEB = build/accessoryd_$(VERSION)_$(ARCH).deb
systemd-test: release
	@scripts/install-deps.sh --systemd
	@if [ ! -f "$(DEB)" ] || [ -n "$$(find "$(RELEASE_BIN)/accessoryd" "$(RELEASE_BIN)/accessoryctl" \
		"$(RELEASE_BIN)/accessory-sim" systemd packaging config scripts/install.sh scripts/make-deb.sh \
		-newer "$(DEB)" -print -quit)" ]; then $(MAKE) --no-print-directory deb; else echo "$(DEB) is up to date"; fi
	MAKE_DEB_NO_LINT=1 scripts/make-deb.sh "$(RELEASE_BIN)" "$(VERSION)+upgrade"
	scripts/systemd-test.sh "$(DEB)" "build/accessoryd_$(VERSION)+upgrade_$(ARCH).deb"

clean:
	rm -rf .build .build-* build
