#!/usr/bin/env python3
"""Side by side wake-word comparison: jarvis vs openWakeWord 0.5.1 vs `pocketsphinx_continuous -keyphrase`.

All three systems run on the same files in the same run, and the table shows where jarvis beats
openWakeWord (and pocketsphinx's keyword spotter) and where it does not.

  jarvis        `BIN replay F1 F2 ... --json [--wake-phrase P]` (several files per process, events split by
                their "source" field, like ../shared/eval/score.py --batch); detected = a `wake` event.
  openWakeWord  0.5.1, bundled `hey_jarvis_v0.1` ONNX model, 16 kHz mono int16 fed in 1280-sample chunks,
                full model reset between files, each file padded with --oww-pad seconds of silence at both ends
                (default 1 s, what openWakeWord's own Model.predict_clip does); detected = max score >= 0.5
                (the table also shows 0.3). Always "hey jarvis": it has no "jarvis"-only model.
  pocketsphinx  `pocketsphinx_continuous -infile F -keyphrase P -kws_threshold 1e-20 -logfn /dev/null`
                (Debian package `pocketsphinx`); detected = it printed the keyphrase.
Files that are not 16 kHz mono 16-bit PCM WAV with a plain 44-byte header are converted with sox into
/tmp/sbs/conv for openWakeWord and pocketsphinx (jarvis always reads the original file).

openWakeWord is a comparison tool only, never a dependency of jarvis. It runs as a subprocess under its own
virtualenv (this script itself needs only the Python 3 standard library):
    python3 -m venv /tmp/oww-venv
    /tmp/oww-venv/bin/pip install openwakeword==0.5.1 onnxruntime "numpy<2"
The 0.5.1 wheel ships its models (openwakeword/resources/models/hey_jarvis_v0.1.onnx, melspectrogram.onnx,
embedding_model.onnx); if they are missing, run `openwakeword.utils.download_models()` inside the venv.

Usage:
  scripts/sidebyside.py MANIFEST.jsonl [MANIFEST.jsonl ...] [--bin PATH] [--jobs 2] [--limit N] [--markdown]
                        [--wake-phrase "hey jarvis"] [--wake-phrase jarvis] [--systems jarvis,oww,ps]
                        [--batch 25] [--oww-python /tmp/oww-venv/bin/python] [--oww-pad 1.0] [--json OUT]
MANIFEST is in ../shared/eval/score.py's format (one JSON object per line: file, kind, cond, expect.wake).
Each --wake-phrase adds one jarvis column and one pocketsphinx column (default: "hey jarvis" only).
Rows: kind; command split by cond (command/clean, ...), confusable too where its cond is not clean
(confusable/white15, ...); all negative-real/* summed into negative-real. Several manifests are one set.
Cells: wake% = detection rate on clips that expect a wake; FW = number of clips with a false wake among
clips that expect none. CPU = user+sys seconds of the child processes of that system (start-up included).
At most --jobs child processes run at any time; the systems run one after the other.
"""
import argparse, collections, concurrent.futures as cf, hashlib, json, os, subprocess, sys, threading, time, wave

DEFAULT_OWW_PY = "/tmp/oww-venv/bin/python"
CONV_DIR = "/tmp/sbs/conv"
OWW_THRESHOLDS = (0.5, 0.3)

# Runs inside the openWakeWord venv: reads file paths from stdin (one per line), prints one JSON line per file.
OWW_HELPER = r'''
import json, os, sys, wave
import numpy as np
import openwakeword
from openwakeword.model import Model
pad = float(sys.argv[1])
mdir = os.path.join(os.path.dirname(openwakeword.__file__), "resources", "models")
path = os.path.join(mdir, "hey_jarvis_v0.1.onnx")
if not os.path.exists(path):
    from openwakeword.utils import download_models
    download_models(["hey_jarvis"])
np.random.seed(0)  # the preprocessor seeds its feature buffer with random noise
m = Model(wakeword_models=[path], inference_framework="onnx")
name = list(m.models.keys())[0]
pp = m.preprocessor
init_mel = pp.melspectrogram_buffer.copy()
init_feat = pp.feature_buffer.copy()
def reset():
    m.reset()
    pp.raw_data_buffer.clear()
    pp.melspectrogram_buffer = init_mel.copy()
    pp.feature_buffer = init_feat.copy()
    pp.accumulated_samples = 0
    pp.raw_data_remainder = np.empty(0)
for line in sys.stdin:
    f = line.rstrip("\n")
    if not f:
        continue
    try:
        with wave.open(f, "rb") as w:
            assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2, "not 16k mono s16"
            x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
        z = np.zeros(int(16000 * pad), dtype=np.int16)
        x = np.concatenate((z, x, z))
        if len(x) % 1280:
            x = np.concatenate((x, np.zeros(1280 - len(x) % 1280, dtype=np.int16)))
        reset()
        best, tbest = 0.0, 0.0
        for i in range(0, len(x), 1280):
            s = float(m.predict(x[i:i + 1280])[name])
            if s > best:
                best, tbest = s, (i + 1280) / 16000.0 - pad
        print(json.dumps({"file": f, "max": round(best, 5), "t": round(tbest, 2)}), flush=True)
    except Exception as e:
        print(json.dumps({"file": f, "error": repr(e)}), flush=True)
'''


def run_child(cmd, stdin_text=None, timeout=None):
    """Run cmd, return (stdout, rc, cpu seconds of that child alone). Safe to call from several threads."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, p.kill) if timeout else None
    if timer:
        timer.start()
    err_chunks = []
    t_err = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()), daemon=True)
    t_err.start()
    if stdin_text is not None:
        try:
            p.stdin.write(stdin_text)
            p.stdin.close()
        except BrokenPipeError:
            pass
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    t_err.join()
    if timer:
        timer.cancel()
    return out, p.returncode, ru.ru_utime + ru.ru_stime, "".join(err_chunks)


def plain_wav(path):
    """True if path is a 16 kHz mono 16-bit PCM WAV whose data starts at byte 44 (what pocketsphinx assumes)."""
    try:
        with open(path, "rb") as fh:
            h = fh.read(44)
        if len(h) < 44 or h[:4] != b"RIFF" or h[8:12] != b"WAVE" or h[36:40] != b"data":
            return False
        with wave.open(path, "rb") as w:
            return w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2
    except Exception:
        return False


def for_16k(path):
    if plain_wav(path):
        return path
    os.makedirs(CONV_DIR, exist_ok=True)
    out = os.path.join(CONV_DIR, hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:16] + ".wav")
    if not os.path.exists(out):
        tmp = out + ".tmp.wav"
        subprocess.run(["sox", path, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", tmp],
                       check=True, capture_output=True)
        os.replace(tmp, out)
    return out


def wav_seconds(path):
    try:
        with wave.open(path, "rb") as w:
            return w.getnframes() / float(w.getframerate())
    except Exception:
        return os.path.getsize(path) / 32000.0


# ---- systems: each returns {file: detected-or-score}, errors, cpu ----

def jarvis_batch(binary, files, phrase):
    extra = ["--wake-phrase", phrase] if phrase != "hey jarvis" else []
    out, rc, cpu, _ = run_child([binary, "replay"] + files + ["--json"] + extra, timeout=300 * len(files))
    ev = collections.defaultdict(list)
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                e = json.loads(line)
            except json.JSONDecodeError:
                continue
            ev[os.path.abspath(str(e.get("source", "")))].append(e.get("type") or e.get("event"))
    res, bad = {}, []
    for f in files:
        types = ev.get(os.path.abspath(f), [])
        if "end" not in types and (rc != 0 or not types):
            bad.append(f)
        res[f] = "wake" in types
    return res, bad, cpu, rc


def run_jarvis(binary, files, phrase, jobs, batch):
    groups = [files[i:i + batch] for i in range(0, len(files), batch)]
    res, errors, cpu = {}, {}, 0.0
    with cf.ThreadPoolExecutor(jobs) as ex:
        for r, bad, c, rc in ex.map(lambda g: jarvis_batch(binary, g, phrase), groups):
            res.update(r); cpu += c
            if bad and len(r) > 1:
                # retry the files of a failed batch one by one, as score.py without --batch would
                for f in bad:
                    r1, bad1, c1, rc1 = jarvis_batch(binary, [f], phrase)
                    res.update(r1); cpu += c1
                    if bad1:
                        errors[f] = f"rc={rc1}"
            else:
                for f in bad:
                    errors[f] = f"rc={rc}"
    return res, errors, cpu


def ps_one(f, phrase):
    out, rc, cpu, _ = run_child(["pocketsphinx_continuous", "-infile", for_16k(f), "-keyphrase", phrase,
                                 "-kws_threshold", "1e-20", "-logfn", "/dev/null"], timeout=600)
    hit = any(phrase in l.lower() for l in out.splitlines())
    return f, hit, rc, cpu


def run_ps(files, phrase, jobs):
    res, errors, cpu = {}, {}, 0.0
    with cf.ThreadPoolExecutor(jobs) as ex:
        for f, hit, rc, c in ex.map(lambda f: ps_one(f, phrase), files):
            res[f] = hit; cpu += c
            if rc != 0:
                errors[f] = f"rc={rc}"
    return res, errors, cpu


def oww_batch(py, files, pad):
    conv = {for_16k(f): f for f in files}
    out, rc, cpu, err = run_child([py, "-c", OWW_HELPER, str(pad)], stdin_text="".join(c + "\n" for c in conv),
                                  timeout=120 + 60 * len(files))
    res, errors = {}, {}
    for line in out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            f = conv.get(d["file"], d["file"])
            if "error" in d:
                errors[f] = d["error"]
            else:
                res[f] = d["max"]
    for f in files:
        if f not in res and f not in errors:
            errors[f] = f"rc={rc} " + (err.strip().splitlines() or [""])[-1][:200]
    return res, errors, cpu


def run_oww(py, files, jobs, pad):
    # one long-lived helper per worker (model load and Python start-up paid `jobs` times, not per file)
    n = max(1, min(jobs, len(files)))
    chunks = [files[i::n] for i in range(n)]
    res, errors, cpu = {}, {}, 0.0
    with cf.ThreadPoolExecutor(n) as ex:
        for r, e, c in ex.map(lambda ch: oww_batch(py, ch, pad), chunks):
            res.update(r); errors.update(e); cpu += c
    return res, errors, cpu


def slice_of(r):
    k = r["kind"]
    # Commands by condition; confusable names too when they are not clean (the name set under noise).
    if k == "command" or (k == "confusable" and r.get("cond", "clean") != "clean"):
        return f"{k}/{r.get('cond', '')}"
    if k.startswith("negative-real"):
        return "negative-real"
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("manifest", nargs="+", help="one or more manifests, scored as one set")
    ap.add_argument("--bin", default=os.environ.get("JARVIS", ".build/release/jarvis"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--wake-phrase", action="append", default=[],
                    help='jarvis --wake-phrase and pocketsphinx -keyphrase; repeat for several (default "hey jarvis")')
    ap.add_argument("--systems", default="jarvis,oww,ps")
    ap.add_argument("--kinds", default="", help="comma-separated kind prefixes to keep")
    ap.add_argument("--batch", type=int, default=25, help="files per jarvis process")
    ap.add_argument("--oww-python", default=DEFAULT_OWW_PY)
    ap.add_argument("--oww-pad", type=float, default=1.0, help="seconds of silence around each file for openWakeWord")
    ap.add_argument("--json", default="", help="write per-file results here")
    a = ap.parse_args()
    jobs = max(1, min(2, a.jobs))
    if a.jobs > 2:
        print("sidebyside: --jobs capped at 2", file=sys.stderr)
    phrases = [p.strip().lower() for p in a.wake_phrase] or ["hey jarvis"]
    systems = [s.strip() for s in a.systems.split(",") if s.strip()]
    rows = [json.loads(l) for m in a.manifest for l in open(m) if l.strip()]
    if a.kinds:
        rows = [r for r in rows if r["kind"].startswith(tuple(a.kinds.split(",")))]
    if a.limit:
        rows = rows[: a.limit]
    files = list(dict.fromkeys(r["file"] for r in rows))
    audio_s = sum(wav_seconds(f) for f in files)
    if "jarvis" in systems and not os.access(a.bin, os.X_OK):
        sys.exit(f"sidebyside: jarvis binary {a.bin} is not executable; build it or pass --bin PATH.")
    if "oww" in systems and not os.access(a.oww_python, os.X_OK):
        sys.exit(f"sidebyside: {a.oww_python} not found; create the venv (see the top of this file) or pass --oww-python.")

    cols = []  # (label, {file: bool}, errors, cpu, wall)
    oww_scores = {}
    t_all = time.time()
    for s in systems:
        if s == "jarvis":
            for p in phrases:
                t0 = time.time()
                res, err, cpu = run_jarvis(a.bin, files, p, jobs, max(1, a.batch))
                cols.append((f'jarvis "{p}"', res, err, cpu, time.time() - t0))
                print(f"sidebyside: {cols[-1][0]} done in {cols[-1][4]:.0f}s", file=sys.stderr)
        elif s == "oww":
            t0 = time.time()
            scores, err, cpu = run_oww(a.oww_python, files, jobs, a.oww_pad)
            oww_scores = scores
            wall = time.time() - t0
            for th in OWW_THRESHOLDS:
                cols.append((f"openWakeWord@{th}", {f: v >= th for f, v in scores.items()}, err, cpu, wall))
            print(f"sidebyside: openWakeWord done in {wall:.0f}s", file=sys.stderr)
        elif s == "ps":
            for p in phrases:
                t0 = time.time()
                res, err, cpu = run_ps(files, p, jobs)
                cols.append((f'pocketsphinx kws "{p}"', res, err, cpu, time.time() - t0))
                print(f"sidebyside: {cols[-1][0]} done in {cols[-1][4]:.0f}s", file=sys.stderr)
        else:
            sys.exit(f"sidebyside: unknown system {s!r} (jarvis, oww, ps)")
    wall_all = time.time() - t_all

    stats = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for r in rows:
        k = slice_of(r)
        for label, res, err, _, _ in cols:
            c = stats[k][label]
            c["n"] += 1
            if r["file"] in err:
                c["err"] += 1
            hit = bool(res.get(r["file"], False))
            if r["expect"]["wake"]:
                c["pos"] += 1; c["hit"] += hit
            else:
                c["neg"] += 1; c["fw"] += hit

    def cell(c):
        w = f"{100 * c['hit'] / c['pos']:.1f}" if c["pos"] else "-"
        f = str(c["fw"]) if c["neg"] else "-"
        return w, f

    order = sorted(stats)
    tot = {label: sum((stats[k][label] for k in order), collections.Counter()) for label, *_ in cols}
    n_of = {k: stats[k][cols[0][0]]["n"] for k in order}
    head = ["slice", "n"] + [x for label, *_ in cols for x in (f"{label} wake%", "FW")]
    body = [[k, str(n_of[k])] + [x for label, *_ in cols for x in cell(stats[k][label])] for k in order]
    body.append(["TOTAL", str(len(rows))] + [x for label, *_ in cols for x in cell(tot[label])])
    cpu_row = ["CPU s", ""] + [x for label, res, err, cpu, wall in cols for x in (f"{cpu:.1f}", "")]
    rtf_row = ["CPU/audio s", ""] + [x for label, res, err, cpu, wall in cols
                                      for x in (f"{cpu / audio_s:.4f}" if audio_s else "-", "")]
    err_row = ["errors", ""] + [x for label, res, err, cpu, wall in cols for x in (str(len(err)), "")]
    extra = [cpu_row, rtf_row, err_row]

    print(f"# {' + '.join(a.manifest)}: {len(rows)} clips, {audio_s:.0f} s audio; wake% = detected among clips expecting a wake, "
          f"FW = false wakes among clips expecting none; jobs={jobs}, oww pad={a.oww_pad}s")
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        for r in body + extra:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(x) for x in col) for col in zip(head, *body, *extra)]
        fmt = lambda r: "  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(r))
        print(fmt(head))
        for r in body + extra:
            print(fmt(r))
    print(f"# wall {wall_all:.0f}s total; per system: " +
          ", ".join(f"{label} {wall:.0f}s" for label, res, err, cpu, wall in cols if not label.startswith("openWakeWord@0.3")))
    for label, res, err, *_ in cols:
        for f, e in list(err.items())[:5]:
            print(f"# error {label}: {f}: {e}", file=sys.stderr)
    if a.json:
        per = {r["file"]: {"kind": r["kind"], "wake": r["expect"]["wake"],
                           **{label: res.get(r["file"]) for label, res, *_ in cols},
                           **({"oww_max": oww_scores.get(r["file"])} if oww_scores else {})} for r in rows}
        json.dump({"columns": [c[0] for c in cols], "cpu": {c[0]: c[3] for c in cols},
                   "errors": {c[0]: c[2] for c in cols}, "files": per}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
