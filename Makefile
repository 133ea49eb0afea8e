# accessoryd — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
.PHONY: deps build test test-race lint format demo bench loop-bench ops-bench serial-bench fuzz clean

deps:
	@scripts/install-deps.sh

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
	$(SWIFT) format lint --strict --recursive Sources Tests bench fuzz

format:
	$(SWIFT) format --in-place --recursive Sources Tests bench fuzz

## Builds in release, starts the daemon on its embedded default (simulated accessories) and
## runs a short accessoryctl session against it.
demo: deps
	$(SWIFT) build -c release --product accessoryd
	$(SWIFT) build -c release --product accessoryctl
	$(SWIFT) build -c release --product accessory-sim
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)"

bench: loop-bench ops-bench serial-bench

loop-bench:
	$(SWIFT) run -c release loop-bench

ops-bench:
	$(SWIFT) run -c release ops-bench

serial-bench:
	$(SWIFT) run -c release serial-bench

## libFuzzer targets (fuzz/<target>/main.swift) on the JSON-RPC decoder, the framers and the
## config decoder, FUZZ_SECONDS each (default 60), from the seeds in fuzz/corpus. See fuzz/run.sh.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

clean:
	rm -rf .build .build-*
