#!/usr/bin/env python3
"""Build the voice set: the dev set's 23 commands, clean, said by four TTS voices the dev set does not use.

The held-out set is built like the dev set "with other voices". These are the other voices this machine's TTS
packages have: flite's rms and kal (8 kHz diphones), and espeak-ng's British English and its American English
with the f3 variant (a higher, female voice). Each clip is "hey jarvis, " + a command of ../shared/eval/devset.py
(its COMMANDS table, imported, not copied), padded as devset.py pads, in its manifest format (score.py,
`jarvis eval`). docs/accuracy.md has what it measures.
Usage: make-voice-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-voices)
Needs: flite, espeak-ng, sox and numpy (as devset.py).
"""

VOICES = {
    "flite_rms": ("flite", "rms"),
    "flite_kal": ("flite", "kal"),
    "espeak_gb": ("espeak", "en-gb"),
    "espeak_f3": ("espeak", "en-us+f3"),
}


def main():
    from tts_set import build
    build("/tmp/jarvis-voices", 20261124,
          lambda devset: [(f"command_{{voice}}_{i:02d}_clean", "command", f"hey jarvis, {text}",
                           {"wake": True, "intents": [{"name": intent, "slots": slots}]})
                          for i, (text, intent, slots) in enumerate(devset.COMMANDS)],
          voices=VOICES)


if __name__ == "__main__":
    main()
