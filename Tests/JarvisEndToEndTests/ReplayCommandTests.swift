import Foundation
import XCTest

/// Runs the built `jarvis` binary, as a user or a script would, and checks its output and exit status.
final class ReplayCommandTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("audio-fixtures")

    typealias Result = JarvisBinary.Result

    var binary: URL { JarvisBinary.url(for: Self.self) }

    func jarvis(_ args: [String]) throws -> Result { try JarvisBinary.run(binary, args) }

    func fixture(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: binary.path),
                          "build the jarvis executable first (swift build)")
    }

    func testReplayJSONStream() throws {
        let r = try jarvis(["replay", fixture("session.wav"), "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = r.events
        XCTAssertEqual(events.count, r.stdout.split(separator: "\n").count, "every line is one JSON object")
        XCTAssertEqual(events.first?["type"] as? String, "listening")
        XCTAssertEqual(events.first?["sample_rate"] as? Int, 16000)
        XCTAssertEqual(events.last?["type"] as? String, "end")
        let intents = events.filter { $0["type"] as? String == "intent" }
        XCTAssertEqual(intents.compactMap { $0["name"] as? String }, ["navigate", "click", "navigate"])
        let actions = events.filter { $0["type"] as? String == "action" }
        XCTAssertEqual(actions.compactMap { $0["status"] as? String }, ["dry-run", "dry-run", "dry-run"])
        for e in events {
            XCTAssertNotNil(e["t"] as? Double, "every event has t")
            XCTAssertNotNil(e["type"] as? String)
        }
        let stats = events.last?["stats"] as? [String: Any]
        XCTAssertEqual(stats?["intents"] as? Int, 3)
        XCTAssertEqual(stats?["wakes"] as? Int, 3)
        XCTAssertEqual(stats?["audio_seconds"] as? Double ?? 0, 10.12, accuracy: 0.05)
    }

    /// `jarvis bench` prints where the CPU went, stage by stage, as a table and in its JSON.
    func testBenchShowsTheCPUByStage() throws {
        let text = try jarvis(["bench", fixture("search_pizza.wav")])
        XCTAssertEqual(text.status, 0, text.stderr)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        guard let header = lines.firstIndex(of: "CPU by stage (% of the cpu above)"), header + 2 < lines.count else {
            return XCTFail(text.stdout)
        }
        XCTAssertTrue(lines[header + 1].hasPrefix("file"), lines[header + 1])
        XCTAssertTrue(lines[header + 1].contains("live decoder") && lines[header + 1].hasSuffix("other"), lines[header + 1])
        let shares = lines[header + 2].split(separator: " ").dropFirst().compactMap { Double($0) }
        XCTAssertTrue(lines[header + 2].hasPrefix("search_pizza.wav"), lines[header + 2])
        XCTAssertEqual(shares.count, 7, lines[header + 2])
        XCTAssertEqual(shares.reduce(0, +), 100, accuracy: 1.5)
        let json = try jarvis(["bench", fixture("search_pizza.wav"), "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let stages = json.events.first?["cpu_stage_seconds"] as? [String: Double]
        XCTAssertEqual(Set(stages?.keys.map { $0 } ?? []),
                       ["live_decoder", "wake_candidates", "second_pass", "language_model", "language_model_load",
                        "recognizer_set_up", "other"])
        XCTAssertGreaterThan(stages?["language_model"] ?? 0, 0)
    }

    func testSeveralFilesEachFromAFreshStateWithSource() throws {
        let a = fixture("scroll_down.wav"), b = fixture("search_pizza.wav")
        let r = try jarvis(["replay", a, b, "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let intents = r.events.filter { $0["type"] as? String == "intent" }
        XCTAssertEqual(intents.compactMap { $0["source"] as? String }, [a, b])
        XCTAssertEqual((intents.last?["slots"] as? [String: Any])?["query"] as? String, "pizza recipes")
        XCTAssertEqual(r.events.filter { $0["type"] as? String == "end" }.count, 2)
        // Each file's clock starts at 0.
        let wakes = r.events.filter { $0["type"] as? String == "wake" }.compactMap { $0["t"] as? Double }
        XCTAssertEqual(wakes.count, 2)
        XCTAssertTrue(wakes.allSatisfy { $0 < 3 }, "\(wakes)")
    }

    /// PocketSphinx's own Gaussian scoring (`--gaussians pocketsphinx`) and the SIMD scorer give the same scores,
    /// so the same events to the last digit (the end event's CPU seconds aside); the checking mode, asked for by
    /// the environment, compares every frame and reports none different.
    func testTheGaussianScorerChangesNoEvent() throws {
        let files = [fixture("session.wav"), fixture("search_pizza.wav"), fixture("noisy_page_down.wav")]
        func events(_ r: Result) -> [String] {
            r.stdout.split(separator: "\n").map(String.init).filter { !$0.contains("\"type\":\"end\"") }
        }
        let fast = try JarvisBinary.run(binary, ["replay"] + files + ["--json"], environment: ["JARVIS_CHECK_GAUSSIANS": "1"])
        let own = try jarvis(["replay"] + files + ["--json", "--gaussians", "pocketsphinx"])
        XCTAssertEqual(fast.status, 0, fast.stderr)
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(events(fast), events(own))
        XCTAssertEqual(fast.events("intent").count, 5)
        let report = try XCTUnwrap(fast.stderr.split(separator: "\n").first { $0.hasPrefix("gaussian scoring check:") })
        XCTAssertTrue(report.hasSuffix(" 0 differed"), String(report))
        let compared = Int(report.split(separator: " ")[3]) ?? 0
        XCTAssertGreaterThan(compared, 2_000, "every decoder's frames compared: \(report)")
        XCTAssertEqual(try jarvis(["replay", files[0], "--gaussians", "slow"]).status, 2)
    }

    /// Several files in one call share one pipeline (the models load once), reset between files: the events are
    /// those of one call per file, to the last digit (the end events' CPU seconds aside).
    func testSeveralFilesInOneCallGiveTheEventsOfOneCallEach() throws {
        let files = [fixture("search_pizza.wav"), fixture("noisy_page_down.wav"), fixture("espeak_f3_new_tab.flac"),
                     fixture("session.wav")]
        func events(_ r: Result) -> [String] {
            r.stdout.split(separator: "\n").map(String.init).filter { !$0.contains("\"type\":\"end\"") }
        }
        let together = try jarvis(["replay"] + files + ["--json"])
        XCTAssertEqual(together.status, 0, together.stderr)
        var apart: [String] = []
        for file in files {
            let r = try jarvis(["replay", file, "--json"])
            XCTAssertEqual(r.status, 0, r.stderr)
            apart += events(r)
        }
        XCTAssertEqual(together.events("intent").count, 6)
        XCTAssertEqual(events(together), apart)
    }

    func testReadableOutputByDefault() throws {
        let r = try jarvis(["replay", fixture("scroll_down.wav")])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("intent: scroll amount=1 direction=down"), r.stdout)
        XCTAssertFalse(r.stdout.contains("{"))
    }

    func testMissingFileExitsWith3AndSaysSo() throws {
        let missing = "/nonexistent/dir/x.wav"
        let r = try jarvis(["replay", missing, "--json"])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains(missing), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one sentence")
        let error = r.events.first { $0["type"] as? String == "error" }
        XCTAssertEqual(error?["code"] as? String, "audio-not-found")
        XCTAssertEqual(error?["source"] as? String, missing)
    }

    func testABadFileDoesNotStopTheOthers() throws {
        let good = fixture("scroll_down.wav")
        let r = try jarvis(["replay", Self.fixtures.path, good, "--json"])
        XCTAssertEqual(r.status, 3, "a failed file is reported in the exit status")
        XCTAssertEqual(r.events.first { $0["type"] as? String == "error" }?["code"] as? String, "audio-is-directory")
        XCTAssertEqual(r.events.filter { $0["type"] as? String == "intent" }.count, 1, "the good file still ran")
    }

    func testNonAudioBytesExitWith3() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-e2e-\(UUID().uuidString).wav")
        try Data(repeating: 0x41, count: 5000).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let r = try jarvis(["replay", path.path])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("not a readable audio file"), r.stderr)
    }

    func testUsageErrorsExitWith2() throws {
        XCTAssertEqual(try jarvis(["replay", fixture("scroll_down.wav"), "--no-such-option"]).status, 2)
        XCTAssertEqual(try jarvis(["replay"]).status, 2)
        XCTAssertEqual(try jarvis(["frobnicate"]).status, 2)
        XCTAssertEqual(try jarvis(["replay", fixture("scroll_down.wav"), "--wake-phrase", "  "]).status, 2)
        XCTAssertEqual(try jarvis(["replay", fixture("scroll_down.wav"), "--wake-threshold", "5"]).status, 2)
    }

    func testHelpExitsWith0() throws {
        let r = try jarvis(["replay", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("--wake-phrase"))
        XCTAssertFalse(r.stdout.contains("--vad"), "tuning options stay out of --help")
    }

    /// The tuning and comparison options the README names are listed by each pipeline command's
    /// `--help-hidden`, as it says.
    func testHiddenHelpListsTheTuningOptions() throws {
        for command in ["replay", "listen", "bench", "eval"] {
            let r = try jarvis([command, "--help-hidden"])
            XCTAssertEqual(r.status, 0, command)
            for option in ["--vad", "--gaussians", "--hangover-ms", "--wake-threshold", "--command-threshold"] {
                XCTAssertTrue(r.stdout.contains(option), "\(command) \(option)")
            }
        }
    }

    func testMissingModelIsAClearError() throws {
        let r = try jarvis(["replay", fixture("scroll_down.wav"), "--model", "/nonexistent-model"])
        XCTAssertEqual(r.status, 4)
        XCTAssertTrue(r.stderr.contains("--model"), r.stderr)
    }

    /// `-` replays the audio piped into standard input: the same events as the file (source "-"), whatever its
    /// format; nothing there is an audio error, and `-` twice a usage error.
    func testStandardInputReplaysAsTheFileDoes() throws {
        let path = fixture("search_pizza.wav")
        let fromFile = try jarvis(["replay", path, "--json"])
        let piped = try JarvisBinary.run(binary, ["replay", "-", "--json"], input: try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        func withoutSourceAndCPU(_ events: [[String: Any]]) -> [String] {
            events.map { e in
                var e = e
                e["source"] = nil
                if var stats = e["stats"] as? [String: Any] { stats["cpu_seconds"] = nil; e["stats"] = stats }
                return String(decoding: try! JSONSerialization.data(withJSONObject: e, options: [.sortedKeys]), as: UTF8.self)
            }
        }
        XCTAssertEqual(withoutSourceAndCPU(piped.events), withoutSourceAndCPU(fromFile.events))
        XCTAssertEqual(piped.events.first?["source"] as? String, "-")
        XCTAssertEqual(piped.events("intent").count, 1)
        let empty = try JarvisBinary.run(binary, ["replay", "-", "--json"], input: Data())
        XCTAssertEqual(empty.status, 3)
        XCTAssertEqual(empty.events("error").first?["code"] as? String, "audio-empty")
        XCTAssertEqual(try jarvis(["replay", "-", "-"]).status, 2)
    }

    /// A wake phrase the recogniser cannot say is a usage error (exit 2), found before any audio is read.
    func testAWakePhraseWithAnUnknownWordIsAUsageError() throws {
        let r = try jarvis(["replay", fixture("scroll_down.wav"), "--json", "--wake-phrase", "hey zzyzxq"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.events("error").first?["code"] as? String, "config", r.stdout)
        XCTAssertTrue(r.stderr.hasPrefix("jarvis: --wake-phrase: 'zzyzxq' is not in the pronunciation dictionary"), r.stderr)
        XCTAssertTrue(r.events("listening").isEmpty)
    }

    /// A damaged model is one clear sentence, an `error` event and exit 4 before any audio is read, whatever
    /// PocketSphinx would have done with it: crash (a truncated binary `mdef`), print its option list (a bad
    /// `feat.params` value), or hear nothing in every search (a truncated trie language model).
    func testADamagedModelIsAClearErrorNotACrash() throws {
        let mdef = try debianModelFile("en-us/mdef")
        let params = String(decoding: try debianModelFile("en-us/feat.params"), as: UTF8.self)
        let lm = try debianModelFile("en-us.lm.bin")
        let cases: [(String, [String: Data], String)] = [
            ("truncated mdef", ["en-us/mdef": mdef.prefix(5000)], "mdef' is damaged"),
            ("bad feat.params", ["en-us/feat.params": Data((params + "\n-nfilt many\n").utf8)], "-nfilt needs a whole number"),
            ("truncated language model", ["en-us.lm.bin": lm.prefix(300_000)], "is truncated or damaged"),
        ]
        for (what, files, expected) in cases {
            let r = try jarvis(["replay", fixture("search_pizza.wav"), "--json", "--model", try modelCopy(replacing: files)])
            XCTAssertEqual(r.status, 4, what)
            XCTAssertEqual(r.events("error").first?["code"] as? String, "model-invalid", what)
            XCTAssertTrue((r.events("error").first?["message"] as? String)?.contains(expected) == true, "\(what): \(r.stdout)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(what): one line on stderr: \(r.stderr)")
            XCTAssertTrue(r.events("intent").isEmpty && r.events("listening").isEmpty, what)
        }
    }

    /// A language model that only fails as sphinxbase reads it (an ARPA file cut short) fails the first search:
    /// the wake before it is reported, then the error with sphinxbase's reason, at the audio time it happened.
    func testALanguageModelThatFailsAtTheFirstSearchIsReportedWithItsTime() throws {
        let arpa = "\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n-1.0 <s> -0.3\n-1.0 </s>\n"
        let model = try modelCopy(replacing: ["en-us.lm.bin": Data(arpa.utf8)])
        let r = try jarvis(["replay", fixture("search_pizza.wav"), "--json", "--model", model])
        XCTAssertEqual(r.status, 4, r.stderr)
        let types = r.events.compactMap { $0["type"] as? String }
        XCTAssertEqual(types.filter { $0 != "speech_start" && $0 != "speech_end" }, ["listening", "wake", "error"], r.stdout)
        let error = try XCTUnwrap(r.events("error").first)
        XCTAssertEqual(error["code"] as? String, "recogniser")
        XCTAssertGreaterThan(error["t"] as? Double ?? 0, r.events("wake").first?["t"] as? Double ?? .infinity)
        XCTAssertTrue((error["message"] as? String)?.contains("cannot read") == true, r.stdout)
    }

    /// PocketSphinx ends the process itself on some models it cannot use (exit 1, and nothing said, since jarvis
    /// keeps its log off stderr): variance normalisation, which a live decoder does not do, is one. jarvis reports
    /// it like any recogniser failure first.
    func testAModelPocketSphinxStopsOnIsReportedWithExit4() throws {
        let params = String(decoding: try debianModelFile("en-us/feat.params"), as: UTF8.self)
        let model = try modelCopy(replacing: ["en-us/feat.params": Data(params.replacingOccurrences(of: "-varnorm no", with: "-varnorm yes").utf8)])
        let r = try jarvis(["replay", fixture("scroll_down.wav"), "--json", "--model", model])
        XCTAssertEqual(r.status, 4, r.stderr)
        let message = r.events("error").first?["message"] as? String
        XCTAssertEqual(r.events("error").first?["code"] as? String, "recogniser", r.stdout)
        XCTAssertTrue(message?.contains("Variance normalization") == true, r.stdout)
        XCTAssertEqual(r.stderr, "jarvis: \(message ?? "")\n")
    }

    func testCommittedGrammarsMatchTheCommandSet() throws {
        for (file, phrase) in [("hey-jarvis.fsg", "hey jarvis"), ("jarvis.fsg", "jarvis")] {
            let committed = try String(contentsOf: Self.root.appendingPathComponent("models").appendingPathComponent(file),
                                       encoding: .utf8)
            let r = try jarvis(["commands", "--grammar", "--wake-phrase", phrase])
            XCTAssertEqual(r.status, 0)
            XCTAssertTrue(r.stdout.hasPrefix("FSG_BEGIN"))
            XCTAssertEqual(r.stdout, committed, "models/\(file) is stale: run scripts/make-models.sh")
        }
    }

    func testCommandsListsWhatYouCanSay() throws {
        let r = try jarvis(["commands"])
        XCTAssertEqual(r.status, 0)
        for phrase in ["scroll <direction>", "new tab", "search for", "<site> ="] {
            XCTAssertTrue(r.stdout.contains(phrase), phrase)
        }
    }
}

extension ReplayCommandTests {
    /// `jarvis eval` scores a manifest in one process with score.py's table.
    func testEvalPrintsTheScoreTable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-eval-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = [
            #"{"file": "\#(fixture("scroll_down.wav"))", "kind": "command", "cond": "clean", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
            #"{"file": "\#(fixture("session.wav"))", "kind": "command", "cond": "clean", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "up"}}]}}"#,
            #"{"file": "\#(fixture("no_wake.flac"))", "kind": "negative", "cond": "clean", "expect": {"wake": false, "intents": []}}"#,
            #"{"file": "\#(fixture("set_timer.flac"))", "kind": "rejection", "cond": "clean", "expect": {"wake": true, "intents": []}}"#,
            #"{"file": "\#(fixture("not_a_command.flac"))", "kind": "rejection", "cond": "clean", "expect": {"wake": true, "intents": []}}"#,
        ]
        let manifest = dir.appendingPathComponent("m.jsonl")
        try lines.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let outcomes = dir.appendingPathComponent("outcomes.jsonl")
        let r = try jarvis(["eval", manifest.path, "--jobs", "2", "--failures", "--outcomes", outcomes.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(rows.first, ["slice", "n", "wake%", "intent%", "falseWake", "falseIntent", "rc!=0"])
        // session.wav holds three commands, not one scroll: that clip is a miss.
        XCTAssertTrue(rows.contains(["command/clean", "2", "100.0", "50.0", "0", "0", "0"]), r.stdout)
        XCTAssertTrue(rows.contains(["negative", "1", "-", "-", "0", "0", "0"]), r.stdout)
        XCTAssertTrue(r.stdout.contains("non-commands after a wake rejected: 2/2 (100.0 %)"), r.stdout)
        XCTAssertTrue(r.stdout.contains(
            "commands acted on wrongly: 1/2 (50.0 %; 0 of them a search for other words): command/clean 1\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("miss session.wav: navigate {target: back}, click"), r.stdout)
        XCTAssertTrue(r.stdout.contains("summary {\"command_intent_acc\":0.5,"), r.stdout)
        // Each clip's result, for a later run's --against; compared with itself, nothing moved.
        let written = try String(contentsOf: outcomes, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(written.count, 5)
        let session = try JSONSerialization.jsonObject(with: Data(written[1].utf8)) as? [String: Any]
        XCTAssertEqual(session?["file"] as? String, fixture("session.wav"))
        XCTAssertEqual(session?["slice"] as? String, "command/clean")
        XCTAssertEqual(session?["ok"] as? Bool, false)
        XCTAssertTrue((session?["outcome"] as? String ?? "").hasPrefix("navigate {target: back}, click"), "\(written[1])")
        let again = try jarvis(["eval", manifest.path, "--jobs", "2", "--against", outcomes.path, "--by-voice"])
        // No "voice" in these lines: one row per slice, its voice "-".
        XCTAssertTrue(again.stdout.contains("\ncommand/clean -  "), again.stdout)
        XCTAssertTrue(again.stdout.contains(
            "against outcomes.jsonl: 0 gained, 0 lost, 0 changed (wrong before and after), 5 the same\n"), again.stdout)
        let unreadable = try jarvis(["eval", manifest.path, "--against", manifest.path])
        XCTAssertEqual(unreadable.status, 2)
        XCTAssertTrue(unreadable.stderr.contains("m.jsonl:1: not an outcome line"), unreadable.stderr)
        let json = try jarvis(["eval", manifest.path, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.events.count, 1)
        XCTAssertEqual(json.events.first?["command_intent_acc"] as? Double, 0.5)
        XCTAssertEqual(json.events.first?["false_wakes"] as? Int, 0)
        // A clip that should not wake but does is listed too (set_timer.flac: the wake phrase, no command).
        let negative = dir.appendingPathComponent("n.jsonl")
        try #"{"file": "\#(fixture("set_timer.flac"))", "kind": "negative", "cond": "clean", "expect": {"wake": false, "intents": []}}"#
            .write(to: negative, atomically: true, encoding: .utf8)
        let wrong = try jarvis(["eval", negative.path, "--failures"])
        XCTAssertEqual(wrong.status, 0, wrong.stderr)
        XCTAssertTrue(wrong.stdout.contains("miss set_timer.flac: (false wake)"), wrong.stdout)
        // A command clip that did nothing says why: the wake phrase and no command (set_timer.flac), no wake.
        let idle = dir.appendingPathComponent("i.jsonl")
        try [
            #"{"file": "\#(fixture("set_timer.flac"))", "kind": "command", "cond": "clean", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
            #"{"file": "\#(fixture("no_wake.flac"))", "kind": "command", "cond": "clean", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
        ].joined(separator: "\n").write(to: idle, atomically: true, encoding: .utf8)
        let nothing = try jarvis(["eval", idle.path, "--failures"])
        XCTAssertEqual(nothing.status, 0, nothing.stderr)
        XCTAssertTrue(nothing.stdout.contains(
            "commands that did nothing: 2/2 (100.0 %), why:\n  command/clean 2: no wake 1, not-a-command 1\n"), nothing.stdout)
        XCTAssertTrue(nothing.stdout.contains(
            "miss set_timer.flac: (wake only; not-a-command: set a timer for ten minutes)"), nothing.stdout)
        XCTAssertTrue(nothing.stdout.contains("miss no_wake.flac: (nothing)"), nothing.stdout)
    }

    /// `jarvis eval --transcripts` transcribes the clips that have a text and prints word error rates per slice.
    func testEvalTranscriptsGiveWordErrorRates() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-transcripts-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = [
            #"{"file": "\#(fixture("no_wake.flac"))", "kind": "negative", "cond": "clean", "text": "Please scroll down the page, and click the button.", "expect": {"wake": false, "intents": []}}"#,
            // The text says "pasta" where the clip says "pizza": one word of six wrong.
            #"{"file": "\#(fixture("search_pizza.wav"))", "kind": "command", "cond": "clean", "text": "hey jarvis, search for pasta recipes", "expect": {"wake": true, "intents": [{"name": "search", "slots": {"query": "pizza recipes"}}]}}"#,
            // No text: replayed and scored, not transcribed.
            #"{"file": "\#(fixture("scroll_down.wav"))", "kind": "command", "cond": "clean", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
        ]
        let manifest = dir.appendingPathComponent("m.jsonl")
        try lines.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let r = try jarvis(["eval", manifest.path, "--transcripts"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertTrue(rows.contains(["command/clean", "2", "100.0", "100.0", "0", "0", "0"]), r.stdout)
        XCTAssertTrue(rows.contains(["transcripts", "n", "words", "WER%", "clipsRight%"]), r.stdout)
        XCTAssertTrue(rows.contains(["command/clean", "1", "6", "16.7", "0.0"]), r.stdout)
        XCTAssertTrue(rows.contains(["negative", "1", "9", "0.0", "100.0"]), r.stdout)
        XCTAssertTrue(rows.contains(["all", "2", "15", "6.7", "50.0"]), r.stdout)
        let json = try jarvis(["eval", manifest.path, "--transcripts", "--json"])
        XCTAssertEqual(json.events.first?["transcript_wer"] as? Double, 0.067, json.stdout)
        // The clips misheard, with --failures: only the one whose text differs from what it says.
        let failures = try jarvis(["eval", manifest.path, "--transcripts", "--failures"])
        XCTAssertEqual(failures.stdout.split(separator: "\n").filter { $0.hasPrefix("misheard ") },
                       ["misheard search_pizza.wav: said 'hey jarvis search for pasta recipes', "
                        + "heard 'hey jarvis search for pizza recipes'"], failures.stdout)
        // Without the flag: score.py's table and summary only.
        let plain = try jarvis(["eval", manifest.path])
        XCTAssertFalse(plain.stdout.contains("transcripts"), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("transcript_wer"), plain.stdout)
    }

    func testEvalRejectsABadManifestWithOneSentence() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-bad-\(getpid()).jsonl")
        try "{\"file\": \"x.wav\"}\n".write(to: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: bad) }
        let r = try jarvis(["eval", bad.path])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains(":1: not a manifest line"), r.stderr)
        let missing = try jarvis(["eval", "/nonexistent/m.jsonl"])
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "jarvis: The manifest '/nonexistent/m.jsonl' cannot be read; check the path (a JSON-lines file, as ../shared/eval/devset.py writes).\n")
        try "\n".write(to: bad, atomically: true, encoding: .utf8)
        let empty = try jarvis(["eval", bad.path])
        XCTAssertEqual(empty.status, 3, "an empty manifest is not a table of zeros")
        XCTAssertTrue(empty.stderr.hasSuffix("lists no clips.\n"), empty.stderr)
    }
}
