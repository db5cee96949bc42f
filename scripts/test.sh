#!/usr/bin/env bash
# The test command: installs what is missing, builds (the end-to-end tests run the built binary), runs all
# tests (XCTest), and ends with one "tests: N passed, N failed, N skipped" line.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
./scripts/install-deps.sh --test
swift build
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --disable-swift-testing "$@" 2>&1 | tee "$log" || status=$?
summary=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with ([0-9]+ tests? skipped and )?[0-9]+ failures?" "$log" | tail -1 || true)
if [ -n "$summary" ]; then
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  # Failed test cases (a test with several failed assertions counts once).
  failed=$( (grep -E "^Test Case '.*' failed \(" "$log" || true) | sort -u | wc -l)
  skipped=$(echo "$summary" | sed -nE 's/.*with ([0-9]+) tests? skipped.*/\1/p')
  skipped=${skipped:-0}
  echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
fi
exit "$status"
