# Conveniences; the README's two set-up commands are scripts/demo.sh and scripts/test.sh.
export PATH := /opt/swift/usr/bin:$(PATH)
DEVSET ?= /tmp/jarvis-devset

.PHONY: demo test release eval bench bench-long fixtures clean

demo:
	./scripts/demo.sh

test:
	./scripts/test.sh

release:
	swift build -c release

# Dev-set accuracy with the shared scorer (../shared/eval); builds the dev set once.
eval: release
	test -f $(DEVSET)/manifest.jsonl || python3 ../shared/eval/devset.py $(DEVSET)
	python3 ../shared/eval/score.py $(DEVSET)/manifest.jsonl --bin .build/release/jarvis

# Cost and latency table, side by side with pocketsphinx_continuous (scripts/bench.py).
bench: release
	python3 scripts/bench.py

# The same plus a 60-minute replay (memory over time, restarts); takes several minutes.
bench-long: release
	python3 scripts/bench.py --long

fixtures:
	./scripts/make-fixtures.sh

clean:
	rm -rf .build
