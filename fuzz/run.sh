#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/<target>/main.swift and runs each for FUZZ_SECONDS.
#
#   fuzz/run.sh [target…]        (default: json-rpc framers config telnet)
#   FUZZ_SECONDS=60              time per target (libFuzzer -max_total_time)
#   FUZZ_BUILD_ONLY=1            build, do not run
#
# How: the project's library modules (everything AccessoryCore needs) are built by SwiftPM with coverage instrumentation and
# AddressSanitizer (`--sanitize=fuzzer --sanitize=address`, its own scratch path .build-fuzz), and
# each target's main.swift (an `@_cdecl("LLVMFuzzerTestOneInput")` function) is compiled with
# `swiftc -sanitize=fuzzer,address -parse-as-library` against those modules and linked with their
# objects. Each run starts from the committed seeds in fuzz/corpus/<target> and writes what it
# finds to fuzz/corpus-work/<target> (not committed); a crash, leak or timeout leaves its input in
# fuzz/artifacts/ and fails the script. Fails on the first failing target.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=.build-fuzz
SECONDS_PER_TARGET="${FUZZ_SECONDS:-60}"
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(json-rpc framers config telnet)

# The modules each target imports; SwiftPM builds their dependencies too.
modules_for() {
  case "$1" in
    json-rpc) echo ControlProtocol JSONCodec ;;
    framers) echo Transports ;;
    config) echo AccessoryConfig ;;
    telnet) echo TelnetComPort ;;
    *) echo "unknown fuzz target: $1" >&2; exit 2 ;;
  esac
}

# `--sanitize=fuzzer` alone left the Swift modules SwiftPM built as dependencies without
# coverage counters (seen here: the fuzzers crawled at ~160 edges), so the coverage libFuzzer
# reads (8-bit counters, PC table, comparisons) is asked for explicitly for every Swift module.
sanitize=(--sanitize=fuzzer --sanitize=address
  -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table)
# One build of a module that depends on all three targets' modules.
swift build --scratch-path "$SCRATCH" "${sanitize[@]}" --target AccessoryCore
bin="$(swift build --scratch-path "$SCRATCH" "${sanitize[@]}" --show-bin-path)"

# Coverage is what steers libFuzzer: refuse to run on modules built without it.
for target in "${TARGETS[@]}"; do
  for module in $(modules_for "$target"); do
    # (grep -c, not -q: an early exit would fail the pipe under pipefail)
    counted="$(find "$bin/$module.build" -name '*.o' -exec objdump -h {} + | grep -c '__sancov_cntrs' || true)"
    if [ "${counted:-0}" -eq 0 ]; then
      echo "fuzz: $module was built without coverage instrumentation; remove $SCRATCH and run again" >&2
      exit 1
    fi
  done
done

# Everything the targets link: the objects of every library module built above (SwiftPM built
# only the requested modules and their dependencies), and the C modules' module maps.
mapfile -t objects < <(find "$bin" -path '*.build/*.o' -not -path '*/ModuleCache/*' | sort)
mapfile -t modulemaps < <(
  find "$bin" -maxdepth 2 -name module.modulemap
  find Sources/*/include .build-fuzz/checkouts/*/Sources/*/include -name module.modulemap 2>/dev/null
  # System-library targets (CYAML, CUdev) keep theirs beside their header.
  find Sources -mindepth 2 -maxdepth 2 -name module.modulemap
)
# The targets use `package` declarations (JSONCodec's parser and writer, ControlProtocol's fast path), so
# they are compiled as members of the package: with the package name SwiftPM gave its modules
# (made from the checkout folder's name), read from the build it just described.
package_name="$(grep -- '"-module-name","ControlProtocol"' "$SCRATCH/debug.yaml" |
  grep -o -- '"-package-name","[^"]*"' | head -n 1 | cut -d '"' -f 4)"
if [ -z "$package_name" ]; then
  echo "fuzz: cannot find the package name in $SCRATCH/debug.yaml" >&2
  exit 1
fi
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -g -use-ld=lld -I "$bin/Modules"
  -package-name "$package_name")
for map in "${modulemaps[@]}"; do flags+=(-Xcc "-fmodule-map-file=$map"); done

mkdir -p fuzz/artifacts
for target in "${TARGETS[@]}"; do
  exe="$bin/fuzz-$target"
  echo "== fuzz $target: building $exe"
  swiftc "${flags[@]}" "fuzz/$target/main.swift" "${objects[@]}" -o "$exe"
  [ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && continue
  work="fuzz/corpus-work/$target"
  mkdir -p "$work"
  echo "== fuzz $target: ${SECONDS_PER_TARGET}s"
  # New inputs go to the work folder; the committed seeds are only read. The per-input timeout is
  # generous because the machine is shared: a 10 s limit once fired on an input that runs in 0.1 s.
  log="$work.log"
  rm -f "fuzz/artifacts/$target-"*  # what an earlier run saved (kept in fuzz/corpus once fixed)
  status=0
  # Swift's own crash backtracer trips over ASan's stack poisoning (and can hang); libFuzzer
  # prints the stack and saves the input itself.
  SWIFT_BACKTRACE=enable=no "$exe" "$work" "fuzz/corpus/$target" \
    -max_total_time="$SECONDS_PER_TARGET" -timeout=30 -rss_limit_mb=2048 -max_len=8192 \
    -artifact_prefix="fuzz/artifacts/$target-" -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz $target FAILED (exit $status); input saved as: $(ls fuzz/artifacts/ | grep "^$target-" || true)"
    exit 1
  fi
done
echo "fuzz: all targets passed"
