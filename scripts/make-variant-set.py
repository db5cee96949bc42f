#!/usr/bin/env python3
"""Build the variant set: everyday ways of saying the commands that the dev set does not use.

The held-out set has other sentences than the dev set, and people say "next tab please" or "close the current
tab". Each clip is "hey jarvis, " + a variant, and expects that command's intent (kind "paraphrase"), in the
manifest format of ../shared/eval (score.py, `jarvis eval`). The voices and padding come from
../shared/eval/devset.py (imported, not copied); the phrasings are this project's own. The grammar covers all
of the first two rounds but "go to next tab" (without "the", babble's "go back" became "go to last tab");
docs/accuracy.md has what taking it cost.
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

# A third round (2026-11-30), written before the grammar was changed for it; a second group of the same
# manifest, so the clips above stay as they were. The grammar now takes "take me back / home", "(go to the)
# previous page", "scroll to the right" and "search the internet for"; not "search" or "find" alone, "click
# here", nor the sites it does not know (docs/accuracy.md, stop 65, has what taking them cost).
VARIANTS_3 = [
    ("search pizza recipes", "search", {"query": "pizza recipes"}),
    ("find cheap hotels in paris", "search", {"query": "cheap hotels in paris"}),
    ("take me back", "navigate", {"target": "back"}),
    ("take me home", "navigate", {"target": "home"}),
    ("refresh page", "navigate", {"target": "reload"}),
    ("switch to next tab", "navigate", {"target": "next_tab"}),
    ("open netflix", "navigate", {"target": "url", "url~": "netflix"}),
    ("scroll to the right", "scroll", {"direction": "right"}),
    ("click here", "click", {"button": "left", "count": 1}),
    ("search the internet for weather in london", "search", {"query": "weather in london"}),
    ("open instagram", "navigate", {"target": "url", "url~": "instagram"}),
    ("previous page", "navigate", {"target": "back"}),
    ("open a tab", "navigate", {"target": "new_tab"}),
    ("go to the previous page", "navigate", {"target": "back"}),
    ("scroll down ten times", "scroll", {"direction": "down", "amount": 10}),
    ("please go back", "navigate", {"target": "back"}),
    ("close tab please", "navigate", {"target": "close_tab"}),
    ("show me github", "navigate", {"target": "url", "url~": "github"}),
    ("middle click", "click", {"button": "middle"}),
    ("open linkedin", "navigate", {"target": "url", "url~": "linkedin"}),
]


def main():
    from tts_set import build_groups, command_rows
    build_groups("/tmp/jarvis-variants", 20261124,
                 [(None, command_rows("paraphrase", VARIANTS)),
                  (None, command_rows("paraphrase", VARIANTS_3, first_index=len(VARIANTS)))])


if __name__ == "__main__":
    main()
