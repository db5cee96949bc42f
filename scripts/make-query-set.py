#!/usr/bin/env python3
"""Build the query set: 30 searches the dev set does not have, by the dev set's voices and the voice set's.

The dev set holds 6 searches per voice (30 clean ones in all), too few to tell a change in how queries are
transcribed from one clip's luck: a lower word insertion penalty for clean queries won the dev set's espeak-ng
"used cars", and one of these 270 while eight others changed from wrong to wrong (docs/accuracy.md, stop 49).
Each clip is "hey jarvis, search for " + a query, expecting that search with that query exactly; the voices and
padding come from ../shared/eval/devset.py (imported, not copied), the four other voices are make-voice-set.py's.
Manifest format of ../shared/eval (score.py, `jarvis eval`: its command/clean row).
Usage: make-query-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-queries)
Needs: the devset's TTS packages (espeak-ng flite festival festvox-kallpc16k sox) and numpy.
"""

QUERIES = [
    "pizza recipes", "weather tomorrow", "cheap flights to london", "how to tie a tie", "best coffee near me",
    "movie times", "guitar lessons", "python tutorial", "hotels in paris", "red shoes", "chocolate cake",
    "world cup results", "bus schedule", "hiking trails", "new york times", "stock prices", "car insurance",
    "vegetable soup", "running shoes", "cat videos", "the capital of france", "space shuttle", "jazz music",
    "winter jackets", "apple pie", "video games", "the tallest building", "cooking classes",
    "dentist appointment", "electric cars",
]



def voice_set_voices():
    """make-voice-set.py's VOICES (loaded from its file: its name is not a module name)."""
    import importlib.util, os
    spec = importlib.util.spec_from_file_location(
        "voice_set", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-voice-set.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.VOICES


def main():
    from tts_set import build_groups
    rows = [(f"query_{{voice}}_{i:02d}_clean", "command", f"hey jarvis, search for {query}",
             {"wake": True, "intents": [{"name": "search", "slots": {"query": query}}]})
            for i, query in enumerate(QUERIES)]
    build_groups("/tmp/jarvis-queries", 20261128, [(None, rows), (voice_set_voices(), rows)])


if __name__ == "__main__":
    main()
