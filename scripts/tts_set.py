"""Shared by this project's evaluation sets (make-rejection-set.py, make-variant-set.py, make-name-set.py,
make-voice-set.py, make-other-voice-set.py, make-query-set.py, make-request-set.py): each clip is one sentence
said by each of ../shared/eval/devset.py's voices, padded as it pads them (imported, not copied), listed in the
manifest format of ../shared/eval (score.py, `jarvis eval`)."""
import argparse, importlib.util, json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def build(default_out, seed, rows, voices=None):
    """Parses [OUTDIR] [--devset-py PATH] and writes OUTDIR/manifest.jsonl with its clips.

    rows: (stem, kind, spoken text, expect) per clip; `stem` holds "{voice}" for the voice's name.
    voices: name -> (engine, voice) as devset.py's VOICES (the default); rows may then be a function of the
    loaded devset module, for sets made of its own sentences."""
    build_groups(default_out, seed, [(voices, rows)])


def build_commands(default_out, seed, prefix, commands):
    """`build` for commands said after the wake phrase: "hey jarvis, " + each (spoken command, intent, key slots
    that must match; as devset.py's tables), kind "paraphrase", clip stems PREFIX_<voice>_<index>_clean."""
    build(default_out, seed, command_rows(prefix, commands))


def command_rows(prefix, commands, first_index=0):
    """`build_commands`'s rows, numbered from `first_index` (for a second group of commands in one set)."""
    return [(f"{prefix}_{{voice}}_{i:02d}_clean", "paraphrase", f"hey jarvis, {command}",
             {"wake": True, "intents": [{"name": intent, "slots": slots}]})
            for i, (command, intent, slots) in enumerate(commands, start=first_index)]


def build_groups(default_out, seed, groups):
    """As `build`, for several (voices, rows) groups in one manifest (one random generator for all)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=default_out)
    ap.add_argument("--devset-py", default=os.path.join(HERE, "..", "..", "shared", "eval", "devset.py"))
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("devset", a.devset_py)
    devset = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(devset)
    os.makedirs(a.out, exist_ok=True)
    tmp = os.path.join(a.out, "_tmp.wav")
    rng = devset.np.random.default_rng(seed)
    with open(os.path.join(a.out, "manifest.jsonl"), "w") as man:
        for voices, rows in groups:
            if callable(rows):
                rows = rows(devset)
            for vname, (engine, voice) in (voices or devset.VOICES).items():
                for stem, kind, text, expect in rows:
                    devset.synth(engine, voice, text, tmp)
                    path = os.path.join(a.out, stem.format(voice=vname) + ".wav")
                    devset.write(path, devset.pad(devset.read(tmp), rng=rng))
                    man.write(json.dumps({"file": path, "kind": kind, "voice": vname, "cond": "clean", "text": text,
                                          "expect": expect}) + "\n")
    os.remove(tmp)
    print(f"wrote {a.out}/manifest.jsonl")
