#!/usr/bin/env python3
"""Build the variant set: everyday ways of saying the commands that the dev set does not use.

The held-out set has other sentences than the dev set, and people say "next tab please" or "close the current
tab". Each clip is "hey jarvis, " + a variant, and expects that command's intent (kind "paraphrase"), in the
manifest format of ../shared/eval (score.py, `jarvis eval`). The voices and padding come from
../shared/eval/devset.py (imported, not copied); the phrasings are this project's own. The grammar covers all
but two: "look for cheap flights" (with "look for" a telephone prompt of the real recordings woke jarvis) and
"go to next tab" (without "the", babble's "go back" became "go to last tab"). docs/accuracy.md has what taking
them cost.
Usage: make-variant-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-variants)
Needs: the devset's TTS packages (espeak-ng flite festival festvox-kallpc16k sox) and numpy.
"""

# (spoken command after the wake phrase, intent, key slots that must match; as devset.py's tables)
VARIANTS = [
    ("scroll down a bit", "scroll", {"direction": "down"}),
    ("scroll up a little", "scroll", {"direction": "up"}),
    ("go back a page", "navigate", {"target": "back"}),
    ("go forward a page", "navigate", {"target": "forward"}),
    ("close the current tab", "navigate", {"target": "close_tab"}),
    ("next tab please", "navigate", {"target": "next_tab"}),
    ("take me to wikipedia", "navigate", {"target": "url", "url~": "wikipedia"}),
    ("navigate to github", "navigate", {"target": "url", "url~": "github"}),
    ("double click the mouse", "click", {"count": 2}),
    ("right click the mouse", "click", {"button": "right"}),
    ("look for cheap flights", "search", {"query": "cheap flights"}),
    ("reload this page please", "navigate", {"target": "reload"}),
    ("scroll down five", "scroll", {"direction": "down"}),
    ("open a new tab", "navigate", {"target": "new_tab"}),
    # Written after the grammar took the phrasings above, to see how far it reaches beyond them.
    ("go to next tab", "navigate", {"target": "next_tab"}),
    ("switch to the previous tab", "navigate", {"target": "previous_tab"}),
    ("close this tab please", "navigate", {"target": "close_tab"}),
    ("go to home page", "navigate", {"target": "home"}),
    ("visit reddit", "navigate", {"target": "url", "url~": "reddit"}),
    ("search google for hiking boots", "search", {"query": "hiking boots"}),
    ("open up gmail", "navigate", {"target": "url", "url~": "mail.google"}),
    ("scroll the page up", "scroll", {"direction": "up"}),
    ("reload the page please", "navigate", {"target": "reload"}),
    ("left click", "click", {"button": "left", "count": 1}),
]


def main():
    from tts_set import build_commands
    build_commands("/tmp/jarvis-variants", 20261124, "paraphrase", VARIANTS)


if __name__ == "__main__":
    main()
