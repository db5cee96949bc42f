# Entry points; the README's two set-up commands are `make demo` and `make test`.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: deps build release demo test eval clean

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Install, build, and replay the bundled fixtures (a session of three commands, then a search).
demo: release
	.build/release/jarvis replay audio-fixtures/session.wav audio-fixtures/search_pizza.wav

# The test command: builds the executable first (the end-to-end tests run it).
test:
	./scripts/install-deps.sh --test
	$(SWIFT) build
	$(SWIFT) test

# Dev-set accuracy with the shared scorer (needs ../shared).
eval: release
	test -f /tmp/jarvis-devset/manifest.jsonl || python3 ../shared/eval/devset.py /tmp/jarvis-devset
	python3 ../shared/eval/score.py /tmp/jarvis-devset/manifest.jsonl --bin .build/release/jarvis

clean:
	rm -rf .build
