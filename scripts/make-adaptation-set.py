#!/usr/bin/env python3
"""Speech in noise to adapt the acoustic model with (scripts/make-adaptation.sh trains the MLLR transform from it).

Commands drawn from the command set's patterns (with queries and sentences of its own, none of the evaluation
sets'), said by eight TTS voices, under white noise at 10-20 dB and under babble at 5-15 dB (three voices reading
the sentences at once, from a random offset). Writes OUTDIR/wav/*.wav, OUTDIR/adapt.fileids and
OUTDIR/adapt.transcription (sphinxtrain's formats).
Usage: make-adaptation-set.py OUTDIR [--per-voice N] [--devset-py PATH]
"""
import argparse, importlib.util, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
VOICES = [("flite", "slt"), ("flite", "kal16"), ("flite", "awb"), ("flite", "rms"), ("espeak", "en-us"),
          ("espeak", "en-us+m3"), ("espeak", "en-us+f2"), ("festival", "voice_kal_diphone")]
DIRECTIONS = ["down", "up", "left", "right"]
NUMBERS = ["two", "three", "four", "five", "ten"]
SITES = ["amazon", "facebook", "github", "gmail", "google", "reddit", "twitter", "wikipedia", "youtube"]
QUERIES = ["cheap flights to paris", "chocolate cake recipe", "weather in london", "how to tie a tie",
           "best running shoes", "news about the election", "pictures of cats", "the capital of france",
           "jazz music", "vegetable soup", "hotels near the airport", "how tall is mount everest",
           "second hand bikes", "movie times tonight", "the price of gold", "garden furniture",
           "pizza places near me", "how to learn spanish", "basketball results", "apple pie"]
SENTENCES = ["the children walked to school in the morning rain",
             "she bought a new coat and a pair of gloves",
             "please remember to water the plants on friday",
             "the train was late because of a signal problem",
             "we watched a long film about the ocean last night",
             "my brother plays the guitar in a small band",
             "the library closes early on sunday afternoons",
             "he wrote a letter to his grandmother in spain",
             "the kitchen smells of fresh bread and coffee",
             "our neighbours are building a wooden shed",
             "the meeting was moved to thursday at ten",
             "a flock of birds flew over the quiet lake"]


def utterance(rng):
    """One thing said: mostly "hey jarvis" and a command, sometimes a plain sentence."""
    kind = rng.randrange(12)
    if kind == 0: command = f"scroll {rng.choice(DIRECTIONS)}" + (f" {rng.choice(NUMBERS)} times" if rng.random() < 0.2 else "")
    elif kind == 1: command = f"page {rng.choice(['up', 'down'])}"
    elif kind == 2: command = rng.choice(["click", "double click", "right click", "left click", "middle click",
                                          "triple click", "click the mouse"])
    elif kind == 3: command = rng.choice(["go back", "back", "go forward", "forward", "go home", "home page"])
    elif kind == 4: command = rng.choice(["refresh", "reload", "reload the page", "refresh the page"])
    elif kind == 5: command = rng.choice(["new tab", "open a new tab", "close tab", "close this tab", "next tab",
                                          "previous tab", "last tab"])
    elif kind == 6: command = f"{rng.choice(['open', 'go to', 'show me', 'visit'])} {rng.choice(SITES)}"
    elif kind in (7, 8): command = f"{rng.choice(['search for', 'look up', 'google', 'search the web for'])} {rng.choice(QUERIES)}"
    elif kind == 9: return rng.choice(SENTENCES)
    else: command = f"scroll {rng.choice(DIRECTIONS)} a little"
    if rng.random() < 0.15:
        command = "please " + command
    return "hey jarvis " + command


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--per-voice", type=int, default=100)
    ap.add_argument("--devset-py", default=os.path.join(HERE, "..", "..", "shared", "eval", "devset.py"))
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("devset", a.devset_py)
    devset = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(devset)   # its synth, read, write, speech_rms: the same TTS and levels
    np = devset.np
    rng, noise = random.Random(7), np.random.default_rng(7)
    os.makedirs(os.path.join(a.out, "wav"), exist_ok=True)
    tmp = os.path.join(a.out, "_tmp.wav")
    parts = []
    for j, (engine, voice) in enumerate(VOICES[:3]):
        said = []
        for s in SENTENCES[j::3] + SENTENCES:
            devset.synth(engine, voice, s, tmp)
            said.append(devset.read(tmp))
        parts.append(np.concatenate(said))
    n = min(len(p) for p in parts)
    babble = sum(p[:n] for p in parts)
    with open(os.path.join(a.out, "adapt.fileids"), "w") as ids, \
            open(os.path.join(a.out, "adapt.transcription"), "w") as transcription:
        for v, (engine, voice) in enumerate(VOICES):
            for i in range(a.per_voice):
                text = utterance(rng)
                devset.synth(engine, voice, text, tmp)
                x = devset.read(tmp)
                level = devset.speech_rms(x)
                if (i + v) % 2 == 0:
                    cond = "white"
                    x = x + noise.standard_normal(len(x)) * level / 10 ** (rng.uniform(10, 20) / 20)
                else:
                    cond = "babble"
                    start = rng.randrange(len(babble) - len(x))
                    b = babble[start:start + len(x)]
                    x = x + b / devset.speech_rms(b) * level / 10 ** (rng.uniform(5, 15) / 20)
                quiet = noise.standard_normal(devset.SR // 4) * 32768 * 10 ** (-60 / 20)
                uid = f"{engine}_{voice.replace('+', '_')}_{i:03d}_{cond}"
                devset.write(os.path.join(a.out, "wav", uid + ".wav"), np.concatenate([quiet, x, quiet]))
                ids.write(uid + "\n")
                transcription.write(f"<s> {text} </s> ({uid})\n")
    os.remove(tmp)
    print(f"wrote {a.out}: {len(VOICES) * a.per_voice} utterances")


main()
