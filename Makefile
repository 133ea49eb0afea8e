# accessoryd — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
.PHONY: deps bench-deps build test python-test test-race lint format units demo bench micro-bench loop-bench ops-bench serial-bench soak soak-ci fuzz clean

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
	@$(MAKE) --no-print-directory python-test

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

## The race-prone suites under ThreadSanitizer, serially.
test-race: deps
	$(SWIFT) test --sanitize=thread --no-parallel --scratch-path .build-tsan \
		--filter 'IOLoopTests|OperationsTests|TransportsTests|ControlServerTests|SimulatorTests'

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests bench soak fuzz

format:
	$(SWIFT) format --in-place --recursive Sources Tests bench soak fuzz

## The systemd units: `systemd-analyze verify` (any output fails) and the hardening score
## (`security --offline=true`, exposure 2.0 or lower). Needs the built accessoryd.
units:
	$(SWIFT) build --product accessoryd
	@scripts/check-units.sh "$$($(SWIFT) build --show-bin-path)"

## Builds in release, starts the daemon on its embedded default (simulated accessories) and
## runs a short accessoryctl session against it.
demo: deps
	$(SWIFT) build -c release --product accessoryd
	$(SWIFT) build -c release --product accessoryctl
	$(SWIFT) build -c release --product accessory-sim
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)"

## accessoryd beside direct, socat and ser2net (about 5 minutes): prints the table and writes
## bench/results/latest.md. Pass flags with BENCH_ARGS="--requests 5000".
bench: bench-deps
	SWIFT=$(SWIFT) scripts/compare-bench.sh $(BENCH_ARGS)

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

## libFuzzer targets (fuzz/<target>/main.swift) on the JSON-RPC decoder, the framers and the
## config decoder, FUZZ_SECONDS each (default 60), from the seeds in fuzz/corpus. See fuzz/run.sh.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

clean:
	rm -rf .build .build-*
