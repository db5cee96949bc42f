#!/usr/bin/env bash
# Installs what is missing, builds jarvis (release), and replays the bundled fixtures through the pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
./scripts/install-deps.sh
swift build -c release --static-swift-stdlib
.build/release/jarvis replay audio-fixtures/session.wav audio-fixtures/search_pizza.wav
