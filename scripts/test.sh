#!/usr/bin/env bash
# The test command: installs what is missing, builds (the end-to-end tests run the built binary), runs all
# tests (XCTest), and ends with one "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
./scripts/install-deps.sh --test
swift build
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --disable-swift-testing "$@" 2>&1 | tee "$log" || status=$?
summary=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1 || true)
if [ -n "$summary" ]; then
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  failed=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
  echo "tests: $((total - failed)) passed, $failed failed"
fi
exit "$status"
