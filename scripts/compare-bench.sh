#!/usr/bin/env bash
# Builds accessoryd, accessory-sim, echo-accessory and compare-bench in release, one product at a
# time (a 2-core machine), then runs compare-bench with this script's arguments. SWIFT_BUILD_FLAGS
# (`make bench`: the static release build's, so the daemon measured is the one installed and
# packaged, and CI builds release once) are passed to every `swift build`.
# The table is printed and written to bench/results/latest.md (or --output FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
read -r -a flags <<< "${SWIFT_BUILD_FLAGS:-}"
for product in accessoryd accessory-sim echo-accessory compare-bench; do
  "$SWIFT" build -c release "${flags[@]}" --product "$product"
done
bin="$("$SWIFT" build -c release "${flags[@]}" --show-bin-path)"
mkdir -p bench/results
exec "$bin/compare-bench" --products "$bin" "$@"
