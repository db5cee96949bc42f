#!/usr/bin/env python3
"""Build the request set: commands asked for with "can you" or "could you" first, which people say to a computer as
they would to a person ("could you go back", "can you search for pizza recipes").

Each clip is "hey jarvis, " + a request, and expects that command's intent (kind "paraphrase"), by the dev set's
5 voices, in the manifest format of ../shared/eval (score.py, `jarvis eval`). The voices and padding come from
../shared/eval/devset.py (imported, not copied); the phrasings are this project's own. Measure it together with
the non-command set: the same words open sentences that are not commands ("can you tell me a joke").
Usage: make-request-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-requests)
Needs: the devset's TTS packages (espeak-ng flite festival festvox-kallpc16k sox) and numpy.
"""

# (spoken command after the wake phrase, intent, key slots that must match; as devset.py's tables)
REQUESTS = [
    ("can you scroll down", "scroll", {"direction": "down"}),
    ("could you go back", "navigate", {"target": "back"}),
    ("can you open a new tab", "navigate", {"target": "new_tab"}),
    ("could you refresh the page", "navigate", {"target": "reload"}),
    ("can you search for pizza recipes", "search", {"query": "pizza recipes"}),
    ("could you please close this tab", "navigate", {"target": "close_tab"}),
    ("can you click", "click", {"button": "left", "count": 1}),
    ("could you open youtube", "navigate", {"target": "url", "url~": "youtube"}),
]


def main():
    from tts_set import build_commands
    build_commands("/tmp/jarvis-requests", 20261128, "request", REQUESTS)


if __name__ == "__main__":
    main()
