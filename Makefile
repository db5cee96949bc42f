# Conveniences; the README's two set-up commands are scripts/demo.sh and scripts/test.sh.
export PATH := /opt/swift/usr/bin:$(PATH)
DEVSET ?= /tmp/jarvis-devset

.PHONY: demo test release eval fixtures clean

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

fixtures:
	./scripts/make-fixtures.sh

clean:
	rm -rf .build
