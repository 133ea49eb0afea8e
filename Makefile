# accessoryd — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
.PHONY: deps bench-deps build test test-race lint format demo bench micro-bench loop-bench ops-bench serial-bench clean

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

## The race-prone suites under ThreadSanitizer, serially.
test-race: deps
	$(SWIFT) test --sanitize=thread --no-parallel --scratch-path .build-tsan \
		--filter 'IOLoopTests|OperationsTests|TransportsTests|SimulatorTests'

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests bench

format:
	$(SWIFT) format --in-place --recursive Sources Tests bench

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

clean:
	rm -rf .build .build-*
