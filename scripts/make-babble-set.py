#!/usr/bin/env python3
"""Build the babble set: the dev set's clean commands under babble the dev set does not use.

The dev set's babble10 is one recording (flite slt, kal16 and awb reading its first negatives) that starts with
every command, so each command meets the same words at the same moment (awb's "search for" always meets slt's
"going to the beach"). A held-out set built with other voices has other babble. Here the babble is three voices
the dev set does not use (flite rms, flite kal, espeak-ng en-gb) reading devset.py's negatives, built as
devset.py builds its own:
  - "babble10": exactly as devset.py mixes its babble10 (from the babble's start, so each command's "hey" meets
    the three sentences' first words; 10 dB under the command's active speech level);
and, taken from a different point for each clip:
  - "obabble10": the babble starts with the speech, as in the dev set, 10 dB under it (active speech level);
  - "cbabble10": the babble runs from 3 s before the speech to 1 s after it (a room that was already talking),
    10 dB under it.
The commands are those of a built dev set (23 commands x 5 voices, 3 conditions), in its manifest format (score.py, `jarvis eval`).
`--source` and `--kinds` take other clips instead, padded as devset.py pads: the non-command set's sentences
(`--source /tmp/jarvis-rejection/manifest.jsonl --kinds rejection`) check that what helps commands in a talking
room does not make jarvis act on sentences said there.
Usage: make-babble-set.py [OUTDIR] [--devset DIR] [--devset-py PATH] [--dev-voices] [--source MANIFEST] [--kinds K,...]
       (defaults /tmp/jarvis-babble, /tmp/jarvis-devset, its manifest, command)
Needs: numpy, flite, espeak-ng, sox and a built dev set.
"""
import argparse, importlib.util, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SR = 16000
# Voices the dev set does not use; --dev-voices takes the dev set's own babble voices instead (the same talkers,
# other words and moments), which tells the voices' part from the babble's timing.
OTHER_BABBLE_VOICES = [("flite", "rms"), ("flite", "kal"), ("espeak", "en-gb")]
DEV_BABBLE_VOICES = [("flite", "slt"), ("flite", "kal16"), ("flite", "awb")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="/tmp/jarvis-babble")
    ap.add_argument("--devset", default="/tmp/jarvis-devset")
    ap.add_argument("--devset-py", default=os.path.join(HERE, "..", "..", "shared", "eval", "devset.py"))
    ap.add_argument("--dev-voices", action="store_true", help="babble from the dev set's own babble voices")
    ap.add_argument("--source", help="manifest of the clean clips to mix (default: the dev set's)")
    ap.add_argument("--kinds", default="command", help="kinds of clips to take from it, comma-separated")
    a = ap.parse_args()
    voices = DEV_BABBLE_VOICES if a.dev_voices else OTHER_BABBLE_VOICES
    spec = importlib.util.spec_from_file_location("devset", a.devset_py)
    D = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(D)
    np = D.np
    os.makedirs(a.out, exist_ok=True)
    tmp = os.path.join(a.out, "_tmp.wav")
    # devset.py's own babble and mix, with its first three voices replaced by ours.
    D.VOICES = {f"{engine}_{voice}": (engine, voice) for engine, voice in voices}
    babble = D.make_babble(tmp)
    babble = babble / D.speech_rms(babble)
    D.BABBLE = babble
    os.remove(tmp)
    rng = np.random.default_rng(20261126)

    def piece(length):
        """`length` samples of the babble from a random point (wrapping round)."""
        start = int(rng.integers(0, len(babble)))
        return np.resize(np.roll(babble, -start), length)

    source = a.source or os.path.join(a.devset, "manifest.jsonl")
    kinds = set(a.kinds.split(","))
    with open(source) as f, open(os.path.join(a.out, "manifest.jsonl"), "w") as man:
        for line in f:
            d = json.loads(line)
            if d["cond"] != "clean" or d["kind"] not in kinds:
                continue
            x = D.read(d["file"])[SR:-SR]   # the clip without devset.py's 1 s pads
            level = D.speech_rms(x) / 10 ** (10 / 20)
            for cond in ("babble10", "obabble10", "cbabble10"):
                if cond == "babble10":
                    y = D.pad(D.condition(x, cond, rng), rng=rng)
                elif cond == "obabble10":
                    y = D.pad(x + piece(len(x)) * level, rng=rng)
                else:
                    y = piece(len(x) + 4 * SR) * level
                    y[3 * SR:3 * SR + len(x)] += x
                name = os.path.basename(d["file"]).replace("_clean.wav", ".wav").replace(".wav", f"_{cond}.wav")
                path = os.path.join(a.out, name)
                D.write(path, y)
                man.write(json.dumps(dict(d, file=path, cond=cond)) + "\n")
    print(f"wrote {a.out}/manifest.jsonl")


if __name__ == "__main__":
    main()
