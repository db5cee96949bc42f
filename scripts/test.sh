#!/usr/bin/env bash
# The test command: installs what is missing, builds (the end-to-end tests run the built binary), runs all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
./scripts/install-deps.sh --test
swift build
swift test "$@"
