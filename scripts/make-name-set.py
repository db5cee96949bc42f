#!/usr/bin/env python3
"""Build the name set: "hey <name>, <command>" for names that sound like "jarvis" but are not in the dev set.

The dev set's five confusable names (davis, marcus, harris, jasmine, charlie) are what the wake spotter was
tuned against; the held-out set has others. These eleven share most of the name's sounds: the same ending
("travis", "mavis", "purvis", "parvis", "marvis", "elvis"), the same vowel and ending with another start
("harvest", "garvey", "carvers"), or all but the first sound in another spelling ("service", "nervous").
Each is said with two commands by each of ../shared/eval/devset.py's voices (kind "confusable": no wake, no
intent expected), in the manifest format of ../shared/eval (score.py, `jarvis eval`).
Usage: make-name-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-names)
Needs: the devset's TTS packages (espeak-ng flite festival festvox-kallpc16k sox) and numpy.
"""

NAMES = ["travis", "harvest", "service", "mavis", "purvis", "garvey", "nervous", "carvers", "elvis", "parvis",
         "marvis"]
COMMANDS = ["next tab", "scroll down"]


def main():
    from tts_set import build
    build("/tmp/jarvis-names", 20261125,
          [(f"name_{{voice}}_{name}_{j}", "confusable", f"hey {name}, {command}", {"wake": False, "intents": []})
           for name in NAMES for j, command in enumerate(COMMANDS)])


if __name__ == "__main__":
    main()
