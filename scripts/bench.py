#!/usr/bin/env python3
"""Cost and latency benchmark of jarvis, side by side with pocketsphinx_continuous keyword spotting.

Cases (16 kHz mono WAVs made in the bench folder on first use):
  (a) noise   10 min of a pink-noise room floor (about -45 dBFS), no speech
  (b) speech  10 min of continuous real speech without the wake phrase (../shared/corpus/real/asterisk)
  (c) stream  the dev set's 3-minute stream with four commands (../shared/eval/devset.py)
Each case runs --runs times for each program; the table shows medians. CPU is user+system seconds of
the whole process (model loading included) per minute of audio; RSS: the peak resident set, and jarvis's
resident set at the end of the run (the search language model is released after 120 s unused).
Latencies come from `jarvis bench` (audio time from the end of the wake phrase / command to the event).
"own scoring" is jarvis with PocketSphinx's own Gaussian scoring (`--gaussians pocketsphinx`) instead of the
SIMD scorer, which gives the same scores: the same events, to compare the CPU.
A second table says where jarvis's CPU goes in each case (`jarvis bench`'s stages: live decoder, wake
candidates, second pass, the language model's decodes and load, recogniser set-up, the rest).

Start-up: each program on 1 s of digital silence (--runs × 3 runs, median CPU): what every call pays before
it hears anything (`jarvis replay` per file, a test, a pipe).

--long also replays 60 minutes with the VAD off (continuous decoding, a restart every 55 s) and samples
the process's resident memory as it goes.
"""
import argparse, json, os, resource, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))


def sh(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def prepare(folder):
    os.makedirs(folder, exist_ok=True)
    fmt = ["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"]
    cases = {}
    noise = os.path.join(folder, "noise_600s.wav")
    if not os.path.exists(noise):
        sh("sox", "-R", "-n", *fmt, noise, "synth", "600", "pinknoise", "vol", "0.01")
    cases["noise"] = noise
    speech = os.path.join(folder, "speech_600s.wav")
    if not os.path.exists(speech):
        src = os.path.join(SHARED, "corpus", "real", "asterisk")
        parts = []
        for i, name in enumerate(sorted(f for f in os.listdir(src) if f.endswith(".wav"))):
            out = os.path.join(folder, f"part{i:04d}.wav")
            sh("sox", os.path.join(src, name), *fmt, out)
            parts.append(out)
        sh("sox", *parts, speech, "trim", "0", "600")
        for p in parts:
            os.remove(p)
    cases["speech"] = speech
    stream = os.path.join(folder, "devset", "stream_180s.wav")
    if not os.path.exists(stream):
        sh(sys.executable, os.path.join(SHARED, "eval", "devset.py"), os.path.join(folder, "devset"))
    cases["stream"] = stream
    return cases


def measure(argv):
    """Runs argv; returns (stdout, CPU seconds of that child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} exited with {proc.returncode}")
    return proc.stdout, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def peak_rss_of(argv):
    """Peak RSS (MB) of one run, read from /proc while it runs (RUSAGE_CHILDREN keeps the maximum of all)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) / 1024)
        except OSError:
            pass
        time.sleep(0.05)
    return peak


def duration(path):
    return float(subprocess.run(["soxi", "-D", path], stdout=subprocess.PIPE, text=True, check=True).stdout)


def long_replay(jarvis, folder, minutes):
    """60 minutes, VAD off: memory over time and the restarts."""
    path = os.path.join(folder, f"long_{minutes}min.wav")
    if not os.path.exists(path):
        speech = os.path.join(folder, "speech_600s.wav")
        session = os.path.join(ROOT, "audio-fixtures", "session.wav")
        reps = minutes * 60 // 610 + 1
        sh("sox", *([speech, session] * reps), path, "trim", "0", str(minutes * 60))
    proc = subprocess.Popen([jarvis, "replay", path, "--json", "--vad", "off"], stdout=subprocess.PIPE, text=True)
    samples, restarts, intents = [], 0, 0
    next_mark = 0.0
    for line in proc.stdout:
        e = json.loads(line)
        if e["type"] == "restart":
            restarts += 1
        if e["type"] == "intent":
            intents += 1
        if e["t"] >= next_mark:
            try:
                with open(f"/proc/{proc.pid}/status") as f:
                    rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024
                samples.append((e["t"], rss))
            except (OSError, StopIteration):
                pass
            next_mark += 300
    proc.wait()
    print(f"\n## {minutes}-minute replay, VAD off (continuous decoding, restart every 55 s)\n")
    print("| audio time | RSS MB |\n|---:|---:|")
    for t, rss in samples:
        print(f"| {t / 60:5.1f} min | {rss:6.1f} |")
    print(f"\nrestart events: {restarts} (expected {int(minutes * 60 // 51)}–{int(minutes * 60 // 55)} with 4 s overlap), "
          f"intents: {intents}, exit status {proc.returncode}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "jarvis"))
    ap.add_argument("--dir", default="/tmp/jarvis-bench")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--long", action="store_true", help="also the 60-minute memory/restart replay")
    args = ap.parse_args()
    cases = prepare(args.dir)
    psc = subprocess.run(["which", "pocketsphinx_continuous"], stdout=subprocess.PIPE, text=True).stdout.strip()

    rows, stage_rows = [], []
    for name, path in cases.items():
        seconds = duration(path)
        j_cpu, p_cpu, o_cpu, lat, shares = [], [], [], None, []
        for _ in range(args.runs):
            out, cpu = measure([args.bin, "bench", path, "--json"])
            j_cpu.append(cpu)
            lat = json.loads(out.strip().splitlines()[-1])
            stages = lat.get("cpu_stage_seconds", {})
            total = sum(stages.values())
            shares.append({k: 100 * v / total for k, v in stages.items()} if total > 0 else {})
            own, cpu = measure([args.bin, "bench", path, "--json", "--gaussians", "pocketsphinx"])
            o_cpu.append(cpu)
            own = json.loads(own.strip().splitlines()[-1])
            if (own["wakes"], own["intents"]) != (lat["wakes"], lat["intents"]):
                raise SystemExit(f"bench: {name}: own scoring heard {own['wakes']}/{own['intents']}, "
                                 f"the SIMD scorer {lat['wakes']}/{lat['intents']} wakes/intents")
            if psc:
                _, cpu = measure([psc, "-infile", path, "-keyphrase", "hey jarvis", "-kws_threshold", "1e-20",
                                     "-logfn", "/dev/null"])
                p_cpu.append(cpu)
        j_rss = peak_rss_of([args.bin, "bench", path, "--json"])
        p_rss = peak_rss_of([psc, "-infile", path, "-keyphrase", "hey jarvis", "-kws_threshold", "1e-20",
                             "-logfn", "/dev/null"]) if psc else None
        rows.append((name, seconds, statistics.median(j_cpu), statistics.median(p_cpu) if p_cpu else None,
                     j_rss, p_rss, lat, statistics.median(o_cpu)))
        stage_rows.append((name, {k: statistics.median(s.get(k, 0) for s in shares) for k in (shares[0] if shares else {})}))

    print(f"# jarvis benchmark ({args.runs} runs per program and case, medians; {os.cpu_count()} cores)\n")
    print("| case | audio | jarvis CPU s/min | jarvis % core | jarvis peak RSS MB | jarvis end RSS MB | kws CPU s/min "
          "| kws % core | kws RSS MB | CPU ratio jarvis/kws | own scoring CPU s/min | CPU ratio jarvis/own "
          "| wakes | intents | wake latency | intent latency |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, seconds, jc, pc, jr, pr, lat, oc in rows:
        per = lambda c: c / seconds * 60
        pct = lambda c: c / seconds * 100
        ms = lambda v: "-" if v is None else f"{v * 1000:.0f} ms"
        kws = f"{per(pc):.3f} | {pct(pc):.2f} | {pr:.1f} | {jc / pc:.2f}" if pc else "- | - | - | -"
        print(f"| {name} | {seconds:.0f} s | {per(jc):.3f} | {pct(jc):.2f} | {jr:.1f} | {lat['end_rss_mb']:.1f} | {kws} | "
              f"{per(oc):.3f} | {jc / oc:.2f} | {lat['wakes']} | "
              f"{lat['intents']} | {ms(lat['wake_latency_median'])} | {ms(lat['intent_latency_median'])} |")
    print("\nkws = pocketsphinx_continuous -keyphrase \"hey jarvis\" -kws_threshold 1e-20 (Debian), same files, same run; "
          "own scoring = jarvis --gaussians pocketsphinx (PocketSphinx's Gaussian code, the same events).")
    print_stages(stage_rows)
    startup(args.bin, psc, args.dir, args.runs * 3)
    if args.long:
        long_replay(args.bin, args.dir, 60)


def print_stages(stage_rows):
    """Where jarvis's CPU goes per case: `jarvis bench`'s stages, percent of its processing CPU (medians)."""
    keys = next((list(shares) for _, shares in stage_rows if shares), [])
    if not keys:
        return
    print("\n## Where jarvis's CPU goes (percent of its processing CPU, medians; `jarvis bench`'s stages)\n")
    print("| case | " + " | ".join(k.replace("_", " ") for k in keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for name, shares in stage_rows:
        print(f"| {name} | " + " | ".join(f"{shares.get(k, 0):.1f}" for k in keys) + " |")


def startup(binary, psc, folder, runs):
    """Median CPU of each program on 1 s of digital silence (models loaded, nothing decoded)."""
    silence = os.path.join(folder, "silence_1s.wav")
    if not os.path.exists(silence):
        sh("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", silence, "trim", "0", "1")
    j = statistics.median(measure([binary, "replay", silence, "--json"])[1] for _ in range(runs))
    print(f"\n## Start-up (1 s of silence, median of {runs} runs)\n")
    print("| program | CPU s | ratio to kws |\n|---|---:|---:|")
    if psc:
        p = statistics.median(measure([psc, "-infile", silence, "-keyphrase", "hey jarvis", "-kws_threshold", "1e-20",
                                       "-logfn", "/dev/null"])[1] for _ in range(runs))
        print(f"| jarvis replay | {j:.3f} | {j / p:.2f} |\n| kws | {p:.3f} | 1.00 |")
    else:
        print(f"| jarvis replay | {j:.3f} | - |")


if __name__ == "__main__":
    main()
