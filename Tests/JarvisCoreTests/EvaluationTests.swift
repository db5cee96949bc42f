import XCTest
@testable import JarvisCore

final class EvaluationTests: XCTestCase {
    private let down = Intent(name: "scroll", slots: ["direction": .string("down")], text: "scroll down")
    private let up = Intent(name: "scroll", slots: ["direction": .string("up")], text: "scroll up")

    /// A clip that says "scroll down" (the manifest's expectation) in `kind` and `condition`.
    private func scrollDownClip(_ condition: String, kind: String = "command", file: String = "/x.wav") -> ManifestEntry {
        ManifestEntry(file: file, kind: kind, condition: condition, expectWake: true,
                      expectIntents: [.init(name: "scroll", slots: ["direction": .string("down")], t: nil)])
    }

    /// What the pipeline gave for a clip: `wakes` wakes, rejections with these reasons, these intents.
    private func outcome(wakes: Int = 1, rejected reasons: [String] = [], intents: [Intent] = []) -> ClipOutcome {
        var o = ClipOutcome()
        o.wakes = wakes
        o.rejections = reasons.map { .init(reason: $0, text: "what was heard") }
        o.intents = intents.map { .init(intent: $0, t: 1) }
        return o
    }

    func testWordErrorsCountSubstitutionsDeletionsAndInsertions() {
        let said = ["search", "for", "pizza", "recipes"]
        XCTAssertEqual(EvaluationTable.wordErrors(said, said), 0)
        XCTAssertEqual(EvaluationTable.wordErrors(said, ["search", "for", "pc", "recipes"]), 1)
        XCTAssertEqual(EvaluationTable.wordErrors(said, ["search", "pizza", "recipes"]), 1)
        XCTAssertEqual(EvaluationTable.wordErrors(said, ["search", "for", "a", "pizza", "recipes"]), 1)
        XCTAssertEqual(EvaluationTable.wordErrors(said, []), 4)
        XCTAssertEqual(EvaluationTable.wordErrors([], ["uh", "huh"]), 2)
        XCTAssertEqual(EvaluationTable.wordErrors(said, ["recipes", "pizza", "for", "search"]), 4)
    }

    func testSpokenWordsAreTheLanguageModelsSpelling() {
        XCTAssertEqual(EvaluationTable.spokenWords("Press 1 to mute, or 10 to exit."),
                       ["press", "one", "to", "mute", "or", "ten", "to", "exit"])
        XCTAssertEqual(EvaluationTable.spokenWords("It's 42!"), ["it's", "42"])
        XCTAssertEqual(EvaluationTable.spokenWords(" , "), [])
    }

    func testTranscriptRowsAddUpPerSliceAndSkipClipsWithoutText() {
        func entry(_ kind: String, _ text: String?) -> ManifestEntry {
            ManifestEntry(file: "/x.wav", kind: kind, condition: "clean", expectWake: false, expectIntents: [], text: text)
        }
        func heard(_ words: [String]?) -> ClipOutcome { var o = ClipOutcome(); o.transcript = words; return o }
        var table = EvaluationTable()
        table.add(entry("negative", "ten of clubs"), heard(["ten", "of", "clubs"]))
        table.add(entry("negative", "four queen of clubs"), heard(["for", "queen", "of", "clubs", "uh"]))
        table.add(entry("negative", nil), heard(["anything"]))
        table.add(entry("negative", ""), heard(["anything"]))
        table.add(entry("confusable", "hey davis"), heard(nil))
        XCTAssertEqual(table.transcriptRows.keys.sorted(), ["negative"])
        XCTAssertEqual(table.transcriptRows["negative"], .init(clips: 2, clipsRight: 1, words: 7, wordErrors: 2))
        XCTAssertEqual(table.transcriptTotal.wordErrorRate, 2.0 / 7.0, accuracy: 1e-12)
        XCTAssertEqual(table.misheard.map(\.said), [["four", "queen", "of", "clubs"]])
        XCTAssertEqual(table.misheard.map(\.heard), [["for", "queen", "of", "clubs", "uh"]])
        XCTAssertTrue(table.render().contains("transcripts"))
        XCTAssertFalse(EvaluationTable().render().contains("transcripts"))
    }

    func testWrongActionsAreCountedApartFromMisses() {
        var table = EvaluationTable()
        table.add(scrollDownClip("clean"), outcome(intents: [down]))                 // right
        table.add(scrollDownClip("clean"), outcome())                                // a miss: rejected, nothing done
        table.add(scrollDownClip("white15"), outcome(intents: [up]))                 // wrong
        table.add(scrollDownClip("white15"), outcome(intents: [down, up]))           // the right one and one too many
        table.add(scrollDownClip("clean", kind: "paraphrase"), outcome(intents: [down]))
        let search = ManifestEntry.ExpectedIntent(name: "search", slots: ["query": .string("used cars")], t: nil)
        let misheard = Intent(name: "search", slots: ["query": .string("you is the current")],
                              text: "search for you is the current")
        table.add(ManifestEntry(file: "/s.wav", kind: "command", condition: "clean", expectWake: true,
                                expectIntents: [search]), outcome(intents: [misheard]))
        XCTAssertEqual(table.rows["command/clean"]?.commands, 3)
        XCTAssertEqual(table.rows["command/clean"]?.wrongActions, 1)
        XCTAssertEqual(table.rows["command/clean"]?.wrongQueries, 1)
        XCTAssertEqual(table.rows["command/white15"]?.wrongQueries, 0)
        XCTAssertEqual(table.rows["command/white15"]?.wrongActions, 2)
        XCTAssertEqual(table.rows["command/white15"]?.intentOK, 0)
        XCTAssertTrue(table.render().contains(
            "commands acted on wrongly: 3/6 (50.0 %; 1 of them a search for other words): "
                + "command/clean 1, command/white15 2, paraphrase 0\n"), table.render())
        var negativesOnly = EvaluationTable()
        negativesOnly.add(ManifestEntry(file: "/n.wav", kind: "negative", condition: "clean", expectWake: false,
                                        expectIntents: []), outcome(intents: [up]))
        XCTAssertFalse(negativesOnly.render().contains("acted on wrongly"))
    }

    /// The command clips that gave no intent are counted by why: no wake, the reason of the rejection that
    /// ended the clip, or a wake with nothing after it; wrong actions and right ones are not among them.
    func testCommandsThatDidNothingAreCountedByWhy() {
        var table = EvaluationTable()
        table.add(scrollDownClip("white15"), outcome(wakes: 0))
        table.add(scrollDownClip("white15"), outcome(rejected: ["not-a-command"]))
        table.add(scrollDownClip("white15"), outcome(rejected: ["low-confidence", "not-a-command"]))
        table.add(scrollDownClip("white15"), outcome(rejected: ["speech-continues"]))
        table.add(scrollDownClip("white15"), outcome(intents: [up]))                  // acted wrongly
        table.add(scrollDownClip("clean"), outcome(rejected: ["not-a-command"], intents: [down]))  // right
        table.add(scrollDownClip("clean"), outcome())
        XCTAssertEqual(table.rows["command/white15"]?.didNothing,
                       ["no wake": 1, "not-a-command": 2, "speech-continues": 1])
        XCTAssertEqual(table.rows["command/clean"]?.didNothing, ["woken, no verdict": 1])
        XCTAssertTrue(table.render().contains("""
            commands that did nothing: 5/7 (71.4 %), why:
              command/clean 1: woken, no verdict 1
              command/white15 4: not-a-command 2, no wake 1, speech-continues 1
            summary
            """), table.render())
        XCTAssertEqual(table.failures.map(\.got), ["(nothing)", "(wake only; not-a-command: what was heard)",
                                                   "(wake only; not-a-command: what was heard)",
                                                   "(wake only; speech-continues: what was heard)", "scroll {direction: up}",
                                                   "(wake only)"])
        var allRight = EvaluationTable()
        allRight.add(scrollDownClip("clean"), outcome(intents: [down]))
        XCTAssertFalse(allRight.render().contains("did nothing"), allRight.render())
    }

    /// Two runs compared clip by clip (`--against`): matched by file name and slice, through the file
    /// `--outcomes` writes; a clip won, one lost, one wrong both times with another outcome, and a stream that
    /// missed a command counted wrong.
    func testAnEarlierRunsOutcomesGiveTheClipsGainedLostAndChanged() throws {
        let stream = ManifestEntry(file: "/s.wav", kind: "stream", condition: "clean", expectWake: true,
                                   expectIntents: [.init(name: "scroll", slots: ["direction": .string("down")], t: 1),
                                                   .init(name: "scroll", slots: ["direction": .string("up")], t: 30)])
        func run(_ folder: String, _ outcomes: [ClipOutcome], streamHeard: [Intent]) -> EvaluationTable {
            var table = EvaluationTable()
            for (i, o) in outcomes.enumerated() { table.add(scrollDownClip("clean", file: "\(folder)/c\(i).wav"), o) }
            table.add(stream, outcome(intents: streamHeard))
            return table
        }
        let before = run("/old", [outcome(wakes: 0), outcome(intents: [down]), outcome(intents: [up]),
                                  outcome(rejected: ["not-a-command"]), outcome(intents: [down])],
                         streamHeard: [down])
        let now = run("/new", [outcome(intents: [down]), outcome(rejected: ["low-confidence"]), outcome(),
                               outcome(rejected: ["not-a-command"]), outcome(intents: [down])],
                      streamHeard: [down])
        XCTAssertEqual(now.results.map(\.ok), [true, false, false, false, true, false])
        XCTAssertEqual(now.results.last?.outcome, "scroll {direction: down}")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("outcomes-\(getpid()).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try before.results.map { $0.serialized() + "\n" }.joined().write(to: file, atomically: true, encoding: .utf8)
        let earlier = try ClipResult.load(file.path)
        XCTAssertEqual(earlier, before.results)
        let comparison = EvaluationComparison(before: earlier, now: now.results)
        XCTAssertEqual(comparison.render(against: "before.jsonl"), """
            against before.jsonl: 1 gained, 1 lost, 1 changed (wrong before and after), 3 the same
            gained c0.wav: (nothing) → scroll {direction: down}
            lost c1.wav: scroll {direction: down} → (wake only; low-confidence: what was heard)
            changed c2.wav: scroll {direction: up} → (wake only)

            """)
        // Clips the earlier run did not score are counted, not compared.
        XCTAssertTrue(EvaluationComparison(before: Array(earlier.prefix(2)), now: now.results)
            .render(against: "b").hasPrefix("against b: 1 gained, 1 lost, 0 changed (wrong before and after), 0 the same; 4 not scored there\n"))
        try "{\"file\": \"/a.wav\"}\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ClipResult.load(file.path)) { error in
            XCTAssertTrue("\(error)".hasSuffix(":1: not an outcome line (it needs file, slice, ok and outcome)."), "\(error)")
        }
    }

    /// With `byVoice` each slice has a row per voice ("-" for a clip without one), read from the manifest's
    /// "voice"; the summary is the same as without.
    func testByVoiceGivesARowPerSliceAndVoice() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("voices-\(getpid()).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try [#"{"file": "/a.wav", "kind": "command", "cond": "clean", "voice": "flite_slt", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
             #"{"file": "/b.wav", "kind": "command", "cond": "clean", "voice": "espeak_us", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
             #"{"file": "/c.wav", "kind": "command", "cond": "clean", "expect": {"wake": true, "intents": [{"name": "scroll", "slots": {"direction": "down"}}]}}"#,
        ].joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let entries = try ManifestEntry.load(file.path)
        XCTAssertEqual(entries.map(\.voice), ["flite_slt", "espeak_us", nil])
        let outcomes = [outcome(intents: [down]), outcome(intents: [up]), outcome(wakes: 0)]
        var byVoice = EvaluationTable(byVoice: true), bySlice = EvaluationTable()
        for (entry, o) in zip(entries, outcomes) { byVoice.add(entry, o); bySlice.add(entry, o) }
        XCTAssertEqual(byVoice.rows.keys.sorted(), ["command/clean -", "command/clean espeak_us", "command/clean flite_slt"])
        XCTAssertEqual(byVoice.rows["command/clean flite_slt"]?.intentOK, 1)
        XCTAssertEqual(byVoice.rows["command/clean espeak_us"]?.wrongActions, 1)
        XCTAssertEqual(byVoice.rows["command/clean -"]?.didNothing, ["no wake": 1])
        XCTAssertTrue(byVoice.render().contains("\ncommand/clean espeak_us     1  100.0      0.0 "), byVoice.render())
        XCTAssertEqual(byVoice.summary, bySlice.summary)
        XCTAssertEqual(byVoice.results.map(\.slice), bySlice.results.map(\.slice))
    }

    /// cpu_per_audio_s is score.py's: over the clips of 30 s or more when there are any (their replays' CPU),
    /// else the whole run's CPU over all the audio.
    func testCPUPerAudioSecondIsMeasuredOnLongClipsAsScorePyDoes() {
        func clip(audio: Double, cpu: Double) -> ClipOutcome {
            var o = ClipOutcome(); o.audioSeconds = audio; o.cpuSeconds = cpu; return o
        }
        let stream = ManifestEntry(file: "/s.wav", kind: "stream", condition: "clean", expectWake: true, expectIntents: [])
        let negative = ManifestEntry(file: "/n.wav", kind: "negative", condition: "clean", expectWake: false,
                                     expectIntents: [])
        func cpuPerAudioSecond(_ table: EvaluationTable) -> Double? {
            guard case .object(let fields) = table.summary,
                  case .number(let value)? = fields.first(where: { $0.0 == "cpu_per_audio_s" })?.1 else { return nil }
            return value
        }
        var table = EvaluationTable()
        table.add(stream, clip(audio: 180, cpu: 2.7))
        for _ in 0..<10 { table.add(negative, clip(audio: 3, cpu: 1)) }
        table.cpuSeconds = 20  // the whole run's, models loaded included
        XCTAssertEqual(cpuPerAudioSecond(table), 0.015)
        var shortOnly = EvaluationTable()
        for _ in 0..<10 { shortOnly.add(negative, clip(audio: 3, cpu: 1)) }
        shortOnly.cpuSeconds = 12
        XCTAssertEqual(cpuPerAudioSecond(shortOnly), 0.4)
    }
}
