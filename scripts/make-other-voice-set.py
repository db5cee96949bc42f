#!/usr/bin/env python3
"""Build the other-voice set: voices neither the dev set nor the voice set uses, for commands and for speech
that must not wake.

- festival's ked (a diphone voice whose "j" has a strong closure) and cmu_us_slt_arctic_hts (HTS): "hey jarvis, "
  + each of ../shared/eval/devset.py's commands and its first five paraphrases (kinds "command", "paraphrase");
- the dev set's five confusable phrases ("hey davis, scroll down", …) and twenty negatives, by nine voices:
  flite rms and kal, espeak-ng en-gb, en-gb-x-rp, en-us+f3, +m3, +f2, and the two festival voices above
  (kinds "confusable", "negative": no wake, no intent expected).
The dev set's sentences are imported from devset.py, not copied; each clip is padded as devset.py pads, in its
manifest format (score.py, `jarvis eval`). docs/accuracy.md has what it measures.
Usage: make-other-voice-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-other-voices)
Needs: flite, espeak-ng, festival with festvox-kdlpc16k and festvox-us-slt-hts, sox and numpy.
"""

FESTIVAL = {
    "fest_ked": ("festival", "voice_ked_diphone"),
    "fest_slthts": ("festival", "voice_cmu_us_slt_arctic_hts"),
}
OTHERS = {
    "flite_rms": ("flite", "rms"),
    "flite_kal": ("flite", "kal"),
    "espeak_gb": ("espeak", "en-gb"),
    "espeak_rp": ("espeak", "en-gb-x-rp"),
    "espeak_f3": ("espeak", "en-us+f3"),
    "espeak_m3": ("espeak", "en-us+m3"),
    "espeak_f2": ("espeak", "en-us+f2"),
    **FESTIVAL,
}


def commands(devset):
    wake = lambda kind, table: [(f"{kind}_{{voice}}_{i:02d}_clean", kind, f"hey jarvis, {text}",
                                 {"wake": True, "intents": [{"name": intent, "slots": slots}]})
                                for i, (text, intent, slots) in enumerate(table)]
    return wake("command", devset.COMMANDS) + wake("paraphrase", devset.PARAPHRASES[:5])


def not_for_us(devset):
    quiet = {"wake": False, "intents": []}
    return ([(f"confusable_{{voice}}_{i:02d}", "confusable", s, quiet) for i, s in enumerate(devset.CONFUSABLES)]
            + [(f"negative_{{voice}}_{i:02d}", "negative", s, quiet) for i, s in enumerate(devset.NEGATIVES)])


def main():
    from tts_set import build_groups
    build_groups("/tmp/jarvis-other-voices", 20261125, [(FESTIVAL, commands), (OTHERS, not_for_us)])


if __name__ == "__main__":
    main()
