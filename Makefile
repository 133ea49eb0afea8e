# accessoryd — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
.PHONY: deps build test test-race lint format units demo bench loop-bench ops-bench serial-bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

## The whole test suite (Swift Testing). Installs what is missing first.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel
	@# The udev monitor tests send fake udevd messages: only inside a private network namespace.
	ACCESSORYD_HOST_NETNS="$$(readlink /proc/self/ns/net)" unshare -rn \
		$(SWIFT) test --skip-build --no-parallel --filter HotplugNetlink

## The race-prone suites under ThreadSanitizer, serially.
test-race: deps
	$(SWIFT) test --sanitize=thread --no-parallel --scratch-path .build-tsan \
		--filter 'IOLoopTests|OperationsTests|TransportsTests|SimulatorTests'

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests bench

format:
	$(SWIFT) format --in-place --recursive Sources Tests bench

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

bench: loop-bench ops-bench serial-bench

loop-bench:
	$(SWIFT) run -c release loop-bench

ops-bench:
	$(SWIFT) run -c release ops-bench

serial-bench:
	$(SWIFT) run -c release serial-bench

clean:
	rm -rf .build .build-*
