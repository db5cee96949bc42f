# Conveniences; the README's two set-up commands are scripts/demo.sh and scripts/test.sh.
export PATH := /opt/swift/usr/bin:$(PATH)
DEVSET ?= /tmp/jarvis-devset

.PHONY: demo test release eval score sidebyside bench bench-long fixtures adaptation clean

demo:
	./scripts/demo.sh

test:
	./scripts/test.sh

release:
	swift build -c release --static-swift-stdlib

# Accuracy in one process (jarvis eval): the dev set plus the non-command set, the noise set, the variant set
# (everyday phrasings), the name set (names like "jarvis"), the voice set (TTS voices the dev set does not use),
# the babble set (the dev set's commands under babble by voices it does not use), the non-command set under the
# dev set's babble voices (sentences said in a room already talking), the voice set under white noise and under
# the babble set's babble (other talkers in the dev set's noisy conditions), the dev set's negatives and confusable
# names under that babble, the name set under steady noise (white 15 dB and pink 10 dB with the speech, white 15
# dB running throughout), the room set (the dev set's clean clips under brown noise, mains hum and reverberation,
# and turned down 20 and 30 dB),
# the query set (30 searches the dev set does not have, by 9 voices), the other-voice set (festival's ked and slt
# HTS voices; the dev set's confusables and negatives by 9 other voices; skipped without festvox-kdlpc16k and
# festvox-us-slt-hts) and the same under white 15 and pink 10 dB, then the real recordings with the default
# phrase (false wakes) and with "jarvis" alone (detection). Builds the sets once.
REJECTION ?= /tmp/jarvis-rejection
NOISE ?= /tmp/jarvis-noise
VARIANTS ?= /tmp/jarvis-variants
REQUESTS ?= /tmp/jarvis-requests
NAMES ?= /tmp/jarvis-names
NAMES_NOISE ?= /tmp/jarvis-names-noise
VOICES ?= /tmp/jarvis-voices
OTHER_VOICES ?= /tmp/jarvis-other-voices
OTHER_NOISE ?= /tmp/jarvis-other-noise
BABBLE ?= /tmp/jarvis-babble
ROOM_REJECTION ?= /tmp/jarvis-rbabble
NEG_BABBLE ?= /tmp/jarvis-nbabble
VOICES_NOISE ?= /tmp/jarvis-voices-noise
VOICES_BABBLE ?= /tmp/jarvis-voices-babble
ROOM ?= /tmp/jarvis-room
QUERIES ?= /tmp/jarvis-queries
REAL ?= /tmp/jarvis-real.jsonl
# The real recordings whose transcripts are sentences or spoken digits (not single wake words the model lacks).
TRANSCRIBED = negative-real/asterisk,negative-real/pocketsphinx,negative-real/fsdd
# Each run's per-clip results are kept here, and the next `make eval` prints, under each table, the clips that
# moved since (jarvis eval --outcomes / --against).
OUTCOMES ?= /tmp/jarvis-outcomes
keep = --outcomes $(OUTCOMES)/$(1).jsonl $$(test -f $(OUTCOMES)/$(1).jsonl && echo --against $(OUTCOMES)/$(1).jsonl)
# Each set is made once, when its manifest is missing (an order-only prerequisite: a set made from another
# is not made again when that one is newer).
SETS = $(DEVSET)/manifest.jsonl $(REJECTION)/manifest.jsonl $(NOISE)/manifest.jsonl $(VARIANTS)/manifest.jsonl \
  $(REQUESTS)/manifest.jsonl $(NAMES)/manifest.jsonl $(NAMES_NOISE)/manifest.jsonl $(VOICES)/manifest.jsonl \
  $(BABBLE)/manifest.jsonl $(ROOM_REJECTION)/manifest.jsonl $(NEG_BABBLE)/manifest.jsonl \
  $(VOICES_NOISE)/manifest.jsonl $(VOICES_BABBLE)/manifest.jsonl $(ROOM)/manifest.jsonl $(QUERIES)/manifest.jsonl \
  $(REAL)
$(DEVSET)/manifest.jsonl:
	python3 ../shared/eval/devset.py $(DEVSET)
$(REJECTION)/manifest.jsonl:
	python3 scripts/make-rejection-set.py $(REJECTION)
$(NOISE)/manifest.jsonl: | $(DEVSET)/manifest.jsonl
	python3 scripts/make-noise-set.py $(NOISE) --devset $(DEVSET)
$(VARIANTS)/manifest.jsonl:
	python3 scripts/make-variant-set.py $(VARIANTS)
$(REQUESTS)/manifest.jsonl:
	python3 scripts/make-request-set.py $(REQUESTS)
$(NAMES)/manifest.jsonl:
	python3 scripts/make-name-set.py $(NAMES)
$(NAMES_NOISE)/manifest.jsonl: | $(NAMES)/manifest.jsonl
	python3 scripts/make-noise-set.py $(NAMES_NOISE) --source $(NAMES)/manifest.jsonl --conds white15,pink10,cwhite15
$(VOICES)/manifest.jsonl:
	python3 scripts/make-voice-set.py $(VOICES)
$(BABBLE)/manifest.jsonl: | $(DEVSET)/manifest.jsonl
	python3 scripts/make-babble-set.py $(BABBLE) --devset $(DEVSET)
$(ROOM_REJECTION)/manifest.jsonl: | $(REJECTION)/manifest.jsonl
	python3 scripts/make-babble-set.py $(ROOM_REJECTION) --dev-voices --source $(REJECTION)/manifest.jsonl \
	  --kinds rejection
$(NEG_BABBLE)/manifest.jsonl: | $(DEVSET)/manifest.jsonl
	python3 scripts/make-babble-set.py $(NEG_BABBLE) --devset $(DEVSET) --kinds negative,confusable
$(VOICES_NOISE)/manifest.jsonl: | $(VOICES)/manifest.jsonl
	python3 scripts/make-noise-set.py $(VOICES_NOISE) --source $(VOICES)/manifest.jsonl --conds white15
$(VOICES_BABBLE)/manifest.jsonl: | $(VOICES)/manifest.jsonl
	python3 scripts/make-babble-set.py $(VOICES_BABBLE) --source $(VOICES)/manifest.jsonl
$(ROOM)/manifest.jsonl: | $(DEVSET)/manifest.jsonl
	python3 scripts/make-noise-set.py $(ROOM) --devset $(DEVSET) --conds brown10,hum15,chum15,reverb,quiet20,quiet30
$(QUERIES)/manifest.jsonl:
	python3 scripts/make-query-set.py $(QUERIES)
$(REAL):
	python3 ../shared/eval/realset.py > $(REAL)

eval: release $(SETS)
	mkdir -p $(OUTCOMES)
	.build/release/jarvis eval $(DEVSET)/manifest.jsonl $(REJECTION)/manifest.jsonl $(call keep,dev)
	@echo "== noise set (commands, negatives and confusable names under more noise)"
	.build/release/jarvis eval $(NOISE)/manifest.jsonl $(call keep,noise)
	@echo "== variant set (everyday phrasings of the commands)"
	.build/release/jarvis eval $(VARIANTS)/manifest.jsonl $(call keep,variants)
	@echo "== request set (commands asked for: \"can you ...\", \"could you ...\")"
	.build/release/jarvis eval $(REQUESTS)/manifest.jsonl $(call keep,requests)
	@echo "== name set (names that sound like \"jarvis\", not in the dev set)"
	.build/release/jarvis eval $(NAMES)/manifest.jsonl $(call keep,names)
	@echo "== name set under steady noise (white 15 dB, pink 10 dB, white 15 dB running throughout)"
	.build/release/jarvis eval $(NAMES_NOISE)/manifest.jsonl $(call keep,names-noise)
	@echo "== voice set (the dev set's commands said by other TTS voices)"
	.build/release/jarvis eval $(VOICES)/manifest.jsonl $(call keep,voices)
	@echo "== babble set (the dev set's commands under babble by three voices it does not use)"
	.build/release/jarvis eval $(BABBLE)/manifest.jsonl $(call keep,babble)
	@echo "== the non-command set under babble (sentences after the wake phrase in a talking room)"
	.build/release/jarvis eval $(ROOM_REJECTION)/manifest.jsonl $(call keep,room-rejection)
	@echo "== the dev set's negatives and confusable names under the babble set's babble (false wakes in a talking room)"
	.build/release/jarvis eval $(NEG_BABBLE)/manifest.jsonl $(call keep,negatives-babble)
	@echo "== the voice set under white noise at 15 dB, and under the babble set's babble"
	.build/release/jarvis eval $(VOICES_NOISE)/manifest.jsonl $(VOICES_BABBLE)/manifest.jsonl $(call keep,voices-noise)
	@echo "== room set (the dev set's clean clips under brown noise 10 dB, mains hum 15 dB, reverberation, 20 and 30 dB quieter)"
	.build/release/jarvis eval $(ROOM)/manifest.jsonl $(call keep,room)
	@echo "== query set (30 searches the dev set does not have, by its 5 voices and the voice set's 4)"
	.build/release/jarvis eval $(QUERIES)/manifest.jsonl $(call keep,queries)
	@if test -f $(OTHER_VOICES)/manifest.jsonl || python3 scripts/make-other-voice-set.py $(OTHER_VOICES); then \
	  echo "== other-voice set (festival ked and slt HTS commands; confusables and negatives by 9 other voices)"; \
	  .build/release/jarvis eval $(OTHER_VOICES)/manifest.jsonl $(call keep,other-voices); \
	  test -f $(OTHER_NOISE)/manifest.jsonl || python3 scripts/make-noise-set.py $(OTHER_NOISE) \
	    --source $(OTHER_VOICES)/manifest.jsonl --conds white15,pink10; \
	  echo "== other-voice set under white noise at 15 dB and pink noise at 10 dB"; \
	  .build/release/jarvis eval $(OTHER_NOISE)/manifest.jsonl $(call keep,other-noise); \
	else echo "== other-voice set skipped (it needs festival, festvox-kdlpc16k and festvox-us-slt-hts)"; fi
	@echo "== real recordings, wake phrase \"hey jarvis\""
	.build/release/jarvis eval $(REAL) $(call keep,real)
	@echo "== real recordings, wake phrase \"jarvis\""
	.build/release/jarvis eval $(REAL) --wake-phrase jarvis $(call keep,real-jarvis)
	@echo "== recorded speech transcribed by the language model (the real recordings' sentences and digits)"
	.build/release/jarvis eval $(REAL) --kinds $(TRANSCRIBED) --transcripts $(call keep,real-transcripts)

# The same dev set through the shared scorer (one process per batch of clips), as the project is graded.
score: release $(DEVSET)/manifest.jsonl
	python3 ../shared/eval/score.py $(DEVSET)/manifest.jsonl --bin .build/release/jarvis --batch 20

# Wake detection side by side with openWakeWord 0.5.1 and pocketsphinx_continuous (see scripts/sidebyside.py),
# the three tables of docs/accuracy.md: the dev set, the real recordings (both phrases), the name set clean and
# under steady noise.
sidebyside: release $(DEVSET)/manifest.jsonl $(REAL) $(NAMES)/manifest.jsonl $(NAMES_NOISE)/manifest.jsonl
	python3 scripts/sidebyside.py $(DEVSET)/manifest.jsonl --bin .build/release/jarvis --markdown
	python3 scripts/sidebyside.py $(REAL) --bin .build/release/jarvis --markdown \
	  --wake-phrase "hey jarvis" --wake-phrase jarvis
	python3 scripts/sidebyside.py $(NAMES)/manifest.jsonl $(NAMES_NOISE)/manifest.jsonl \
	  --bin .build/release/jarvis --markdown

# Cost and latency table, side by side with pocketsphinx_continuous (scripts/bench.py).
bench: release
	python3 scripts/bench.py

# The same plus a 60-minute replay (memory over time, restarts); takes several minutes.
bench-long: release
	python3 scripts/bench.py --long

fixtures:
	./scripts/make-fixtures.sh

# The acoustic model's transform for speech in noise (RecognizerSettings.babbleAdaptation), trained again from
# scripts/make-adaptation-set.py's clips; rewrites Sources/JarvisCore/Recognition/NoisySpeechTransform.swift.
# Needs: apt-get install sphinxtrain sphinxbase-utils.
adaptation:
	./scripts/make-adaptation.sh

clean:
	rm -rf .build
