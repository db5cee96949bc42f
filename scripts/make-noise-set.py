#!/usr/bin/env python3
"""Build the noise set: the dev set's clean clips under more kinds of noise, commands and non-commands alike.

The dev set puts noise under commands only (white 15 dB, babble 10 dB), and only while the voice speaks. An
always-on tool must also stay silent when somebody says something else, or "hey jasmine", in that noise, and
must work when the noise was there long before the speech (a fan). From the clean clips of a built dev set:
  - commands under pink noise at 10 dB (the noise starts with the speech, as in the dev set: cond "pink10");
  - commands under white noise at 15 dB that runs 3 s before and 1 s after the speech ("cwhite15");
  - negatives and confusable phrases under white 15, babble 10, pink 10 (with the speech) and under white 15
    and pink 10 that run throughout ("cwhite15", "cpink10").
SNRs are against the active speech level, as devset.py measures them; its noise and babble are imported.
`--source MANIFEST --conds C,...` put other clean clips under the given conditions instead, whatever their kind:
the voice set's commands under white noise (`--source /tmp/jarvis-voices/manifest.jsonl --conds white15`) are
the dev set's white15 slice said by voices it does not use. Three more conditions are only made when asked for
(`--conds brown10,hum15,chum15,reverb`): brown (1/f²) noise at 10 dB, a rumble; mains hum at 15 dB (50 Hz with
its 2nd, 3rd and 5th harmonics at 1/k amplitude, a ground loop), starting with the speech ("hum15") or running
from 3 s before it ("chum15", as a ground loop does); a room's reverberation (sox `reverb 50 50 80`); and the
clip as the dev set has it, pads included, turned down 20 or 30 dB ("quiet20", "quiet30": a quiet file, its digital
silence kept).
Usage: make-noise-set.py [OUTDIR] [--devset DIR] [--devset-py PATH] [--source MANIFEST --conds C,...]
       (defaults /tmp/jarvis-noise, /tmp/jarvis-devset)
Needs: numpy, a built dev set, and the devset's TTS packages (for the babble).
"""
import argparse, importlib.util, json, os, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SR = 16000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="/tmp/jarvis-noise")
    ap.add_argument("--devset", default="/tmp/jarvis-devset")
    ap.add_argument("--devset-py", default=os.path.join(HERE, "..", "..", "shared", "eval", "devset.py"))
    ap.add_argument("--source", help="manifest of the clean clips to put under noise (default: the dev set's)")
    ap.add_argument("--conds", help="conditions for every clip, comma-separated (white15, babble10, pink10, "
                                    "cwhite15, cpink10, brown10, hum15, chum15, reverb, quiet20, quiet30); default: by "
                                    "kind, as above")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("devset", a.devset_py)
    D = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(D)
    np = D.np
    os.makedirs(a.out, exist_ok=True)
    D.BABBLE = D.make_babble(os.path.join(a.out, "_tmp.wav"))
    rng = np.random.default_rng(20261124)

    def noise(kind, n):
        return rng.standard_normal(n) if kind == "white" else D.pink(n, rng)

    def brown(n):
        """Brown (1/f²) noise: white noise summed, less its drift (a 0.1 s moving average)."""
        b = np.cumsum(rng.standard_normal(n))
        b -= np.convolve(b, np.ones(1601) / 1601, "same")
        return b / np.sqrt(np.mean(b ** 2))

    def hum(n):
        t = np.arange(n) / SR + rng.uniform(0, 0.02)
        h = sum(np.sin(2 * np.pi * 50 * k * t) / k for k in (1, 2, 3, 5))
        return h / np.sqrt(np.mean(h ** 2))

    def reverberate(x):
        dry, wet = os.path.join(a.out, "_dry.wav"), os.path.join(a.out, "_wet.wav")
        D.write(dry, x)
        subprocess.run(["sox", dry, wet, "reverb", "50", "50", "80", "100", "0", "0"], check=True)
        y = D.read(wet)
        os.remove(dry)
        os.remove(wet)
        return y

    def with_speech(x, cond):
        """Noise only while the clip lasts (devset.py's way)."""
        for kind, make in (("pink", lambda n: noise("pink", n)), ("brown", brown), ("hum", hum)):
            if cond.startswith(kind):
                return x + make(len(x)) * D.speech_rms(x) / 10 ** (float(cond[len(kind):]) / 20)
        if cond == "reverb":
            return reverberate(x)
        if cond.startswith("quiet"):
            return x * 10 ** (-float(cond[len("quiet"):]) / 20)
        return D.condition(x, cond, rng)

    def throughout(x, cond):
        """Noise from 3 s before the speech to 1 s after it (a fan that was already running)."""
        if cond == "chum15":
            bed = hum(len(x) + 4 * SR) * D.speech_rms(x) / 10 ** (15 / 20)
        else:
            kind, snr = ("white", 15.0) if cond == "cwhite15" else ("pink", 10.0)
            bed = noise(kind, len(x) + 4 * SR) * D.speech_rms(x) / 10 ** (snr / 20)
        bed[3 * SR:3 * SR + len(x)] += x
        return bed

    source = a.source or os.path.join(a.devset, "manifest.jsonl")
    with open(source) as f, open(os.path.join(a.out, "manifest.jsonl"), "w") as man:
        for line in f:
            d = json.loads(line)
            if d["cond"] != "clean" or (not a.conds and d["kind"] not in ("command", "negative", "confusable")):
                continue
            whole = D.read(d["file"])
            x = whole[SR:-SR]   # the clip without devset.py's 1 s pads
            if a.conds:
                conds = a.conds.split(",")
            elif d["kind"] == "command":
                conds = ["pink10", "cwhite15"]
            else:
                conds = ["white15", "babble10", "pink10", "cwhite15", "cpink10"]
            for cond in conds:
                if cond.startswith("quiet"):
                    y = with_speech(whole, cond)
                else:
                    y = throughout(x, cond) if cond.startswith("c") else D.pad(with_speech(x, cond), rng=rng)
                name = os.path.basename(d["file"]).replace("_clean", "").replace(".wav", "") + f"_{cond}.wav"
                path = os.path.join(a.out, name)
                D.write(path, y)
                man.write(json.dumps(dict(d, file=path, cond=cond)) + "\n")
    os.remove(os.path.join(a.out, "_tmp.wav"))
    print(f"wrote {a.out}/manifest.jsonl")


if __name__ == "__main__":
    main()
