#!/usr/bin/env python3
"""Build the non-command set: the wake phrase followed by speech that is not a command.

After "hey jarvis", a mature assistant must answer chatter, questions and half-commands with a rejection,
not with the nearest command. Every clip here expects a wake and no intent (kind "rejection"), in the
manifest format of ../shared/eval (score.py, `jarvis eval`). The voices, padding and noise come from
../shared/eval/devset.py (imported, not copied); the sentences are this project's own.
Usage: make-rejection-set.py [OUTDIR] [--devset-py PATH]     (default OUTDIR /tmp/jarvis-rejection)
Needs: the devset's TTS packages (espeak-ng flite festival festvox-kallpc16k sox) and numpy.
"""
import argparse, importlib.util, json, os

HERE = os.path.dirname(os.path.abspath(__file__))

# Requests jarvis has no command for, small talk, and sentences that share words with commands.
SENTENCES = [
    "what is the weather like today",
    "set a timer for ten minutes",
    "tell me a joke",
    "how tall is the eiffel tower",
    "play some relaxing music",
    "turn off the kitchen lights",
    "remind me to call my mother tomorrow",
    "what time is it in tokyo",
    "send a message to john",
    "how do you spell necessary",
    "never mind",
    "thank you very much",
    "what can you do",
    "good morning how are you",
    "add milk to the shopping list",
    "the scroll is on the table",
    "i clicked with her right away",
    "we went back home after the film",
    "open the window it is hot in here",
    "new tablets arrived at the pharmacy",
    "take a picture of the sunset",
    "read my emails",
    "call a taxi to the station",
    "translate good night into french",
    "i will search the garage later",
    "who won the game last night",
    "make the text bigger please",
    "lock the front door",
    "what is the capital of australia",
    "wake me up at seven",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="/tmp/jarvis-rejection")
    ap.add_argument("--devset-py", default=os.path.join(HERE, "..", "..", "shared", "eval", "devset.py"))
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("devset", a.devset_py)
    devset = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(devset)
    os.makedirs(a.out, exist_ok=True)
    tmp = os.path.join(a.out, "_tmp.wav")
    rng = devset.np.random.default_rng(20261123)
    with open(os.path.join(a.out, "manifest.jsonl"), "w") as man:
        for vname, (engine, voice) in devset.VOICES.items():
            for i, sentence in enumerate(SENTENCES):
                text = f"hey jarvis, {sentence}"
                devset.synth(engine, voice, text, tmp)
                path = os.path.join(a.out, f"rejection_{vname}_{i:02d}.wav")
                devset.write(path, devset.pad(devset.read(tmp), rng=rng))
                man.write(json.dumps({"file": path, "kind": "rejection", "voice": vname, "cond": "clean",
                                      "text": text, "expect": {"wake": True, "intents": []}}) + "\n")
    os.remove(tmp)
    print(f"wrote {a.out}/manifest.jsonl")


if __name__ == "__main__":
    main()
