#!/usr/bin/env bash
# Regenerates models/ from the command set.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
swift build
.build/debug/jarvis commands --grammar > models/hey-jarvis.fsg
.build/debug/jarvis commands --grammar --wake-phrase jarvis > models/jarvis.fsg
