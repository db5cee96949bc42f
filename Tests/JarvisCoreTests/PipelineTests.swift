import XCTest
@testable import JarvisCore

/// Real PocketSphinx on the fixtures (Debian's pocketsphinx-en-us model).
final class PipelineTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(ModelPaths.debianDefault.problem() != nil, "pocketsphinx-en-us is not installed")
    }

    /// The default settings without the front end's frequency warp (`RecognizerSettings.frequencyWarp`), for the
    /// tests whose fixtures sit at margins measured before it: they pin a mechanism, not the warp's effect.
    var unwarped: PipelineSettings {
        var settings = PipelineSettings()
        settings.recognizer.frequencyWarp = nil
        return settings
    }

    func run(_ name: String, settings: PipelineSettings = PipelineSettings(), chunk: Int = 1600) throws -> [Event] {
        try run(samples: try readAll(fixtures.appendingPathComponent(name).path), settings: settings, chunk: chunk)
    }

    /// The fixture with a steady white noise added throughout (`NoiseFloor`'s: uniform, the same at every run),
    /// at `noiseDB` dB RMS relative to full scale.
    func run(_ name: String, noiseDB: Double, settings: PipelineSettings = PipelineSettings()) throws -> [Event] {
        let clean = try readAll(fixtures.appendingPathComponent(name).path)
        return try run(samples: NoiseFloor(levelDB: noiseDB).apply(clean[...], start: 0), settings: settings)
    }

    func run(samples: [Int16], settings: PipelineSettings = PipelineSettings(), chunk: Int = 1600) throws -> [Event] {
        var events: [Event] = []
        let pipeline = try Pipeline(settings: settings) { events.append($0) }
        try feed(samples, to: pipeline, chunk: chunk)
        return events
    }

    /// Feeds `samples` to `pipeline` `chunk` samples at a time, as replay does, then finishes it.
    func feed(_ samples: [Int16], to pipeline: Pipeline, chunk: Int = 1600) throws {
        var i = 0
        while i < samples.count {
            try pipeline.process(Array(samples[i..<min(samples.count, i + chunk)]))
            i += chunk
        }
        try pipeline.finish()
    }

    /// Asserts that `events` hold exactly one intent: a search for `query`.
    func assertSearch(_ events: [Event], query: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(intents(events).map(\.name), ["search"], file: file, line: line)
        XCTAssertEqual(intents(events).first?.slots["query"], .string(query), file: file, line: line)
    }

    /// The query slot of the first intent `fixture` gives with `settings`.
    func query(of fixture: String, settings: PipelineSettings) throws -> SlotValue? {
        intents(try run(fixture, settings: settings)).first?.slots["query"]
    }

    func intents(_ events: [Event]) -> [Intent] {
        events.compactMap { if case .intent(let i, _) = $0.kind { return i } else { return nil } }
    }

    func count(_ events: [Event], _ type: String) -> Int { events.filter { $0.type == type }.count }

    /// The reasons of the `rejected` events, in order.
    func rejectionReasons(_ events: [Event]) -> [String] {
        events.compactMap { if case .rejected(_, let reason) = $0.kind { return reason } else { return nil } }
    }

    /// Asserts that the VAD heard speech in `events` and that nothing woke or acted.
    func assertHeardButNotWoken(_ events: [Event], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThan(count(events, "speech_start"), 0, "the VAD heard the speech", file: file, line: line)
        XCTAssertEqual(count(events, "wake"), 0, file: file, line: line)
        XCTAssertEqual(count(events, "intent"), 0, file: file, line: line)
    }

    func testScrollDown() throws {
        let events = try run("scroll_down.wav")
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
        XCTAssertEqual(intents(events).first?.slots, ["direction": .string("down"), "amount": .int(1)])
        // Order of DESIGN.md: wake, transcript, intent, action; times on the audio clock, within the file.
        let order = events.map(\.type).filter { ["wake", "transcript", "intent", "action"].contains($0) }
        XCTAssertEqual(order, ["wake", "transcript", "intent", "action"])
        for e in events { XCTAssertTrue((0...3.5).contains(e.t), "\(e.type) at \(e.t)") }
    }

    /// The grammar's everyday variants, each heard as one command: "close the current tab please" (before them,
    /// the grammar heard "close the tab" and more speech, and rejected it) and "look for cheap flights" ("look
    /// for" opens a search as "search for" and "look up" do; before it was a lead, the grammar heard "refresh"
    /// and more speech).
    func testEverydayVariantOfACommand() throws {
        let variants: [(fixture: String, intent: String, slots: [String: SlotValue], text: String)] = [
            ("close_current_tab.flac", "navigate", ["target": .string("close_tab")], "close the current tab please"),
            ("look_for_flights.flac", "search", ["query": .string("cheap flights")], "look for cheap flights"),
        ]
        for variant in variants {
            let events = try run(variant.fixture)
            XCTAssertEqual(intents(events).map(\.name), [variant.intent], variant.fixture)
            XCTAssertEqual(intents(events).first?.slots, variant.slots, variant.fixture)
            XCTAssertEqual(intents(events).first?.text, variant.text, variant.fixture)
            XCTAssertEqual(count(events, "rejected"), 0, variant.fixture)
        }
    }

    func testSearchQueryIsTheSpokenWords() throws {
        let i = intents(try run("search_pizza.wav"))
        XCTAssertEqual(i.map(\.name), ["search"])
        XCTAssertEqual(i.first?.slots["query"], .string("pizza recipes"))
    }

    /// A search's transcript carries other readings from the language model's next best paths, in the same
    /// form as its text ("search for …"), without the text itself; the quiet words after the talker's query
    /// ("and then we went home" from the television) are cut from them as from the query.
    func testASearchTranscriptCarriesTheNextBestReadings() throws {
        func transcripts(_ events: [Event]) -> [(text: String, alternatives: [String])] {
            events.compactMap { if case .transcript(let text, _, _, _, let alternatives) = $0.kind { (text, alternatives) } else { nil } }
        }
        let rome = transcripts(try run("noisy_search_rome.wav"))
        XCTAssertEqual(rome.map(\.text), ["search for the history of rome"])
        let readings = rome.first?.alternatives ?? []
        XCTAssertGreaterThan(readings.count, 1)
        XCTAssertLessThanOrEqual(readings.count, PipelineSettings().transcriptAlternatives)
        XCTAssertEqual(Set(readings).count, readings.count)
        XCTAssertFalse(readings.contains("search for the history of rome"))
        XCTAssertTrue(readings.allSatisfy { $0.hasPrefix("search for the history of ") }, "\(readings)")
        XCTAssertTrue(transcripts(try run("search_cars_then_tv.flac")).allSatisfy {
            $0.alternatives.allSatisfy { !$0.contains("home") }
        })
        var none = PipelineSettings()
        none.transcriptAlternatives = 0
        XCTAssertEqual(transcripts(try run("noisy_search_rome.wav", settings: none)).map(\.alternatives), [[]])
    }

    func testThreeCommandsInASession() throws {
        let i = intents(try run("session.wav"))
        XCTAssertEqual(i.map(\.name), ["navigate", "click", "navigate"])
        XCTAssertEqual(i.map { $0.slots["target"] }, [.string("back"), nil, .string("url")])
        XCTAssertEqual(i[safe: 1]?.slots["count"], .int(2))
        XCTAssertEqual(i[safe: 2]?.slots["url"]?.description.contains("youtube"), true)
    }

    func testSpeechWithoutTheWakePhraseDoesNothing() throws {
        let events = try run("no_wake.flac")
        XCTAssertGreaterThan(count(events, "speech_start"), 0, "the VAD heard the speech")
        XCTAssertEqual(count(events, "wake"), 0)
        XCTAssertEqual(count(events, "intent"), 0)
    }

    func testWakeThenNonCommandIsRejected() throws {
        let events = try run("not_a_command.flac")
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(count(events, "intent"), 0)
        XCTAssertEqual(count(events, "rejected"), 1)
    }

    /// "hey nervous, next tab" (flite kal16): all of "jarvis" but its first sound. Against the phone loop the
    /// name verifies as a real one does; its onset rival "n aa r v ah s" fits 0.77 nats per frame better
    /// (`onsetRivalMargin` 0.5), so no wake. Without the test: a wake and "next tab".
    func testANameThatDiffersInItsFirstSoundDoesNotWake() throws {
        var settings = PipelineSettings()
        settings.recognizer.onsetRivalMargin = nil
        try assertOtherNameDoesNotWake("nervous_next_tab.flac", unlessWith: settings, target: "next_tab")
        // A real "jarvis" keeps its wake: its rivals fit worse than the name.
        XCTAssertEqual(count(try run("scroll_down.wav"), "wake"), 1)
    }

    /// Under steady noise the onset rivals are not asked (the name's first sound drowns), and "hey nervous, next
    /// tab" (kal16) under white noise (-38 dBFS) wakes. Its "n" keeps the low band up where the closure of
    /// "jarvis"'s "jh" silences it (`onsetDipMinimum`, `OnsetDip`): here it dips by about 11 dB, the "jarvis" of
    /// `search_pizza.wav` under the same noise by about 35. At 12 dB the test stops the name and keeps "jarvis".
    /// (The default, 9 dB, was set on the name set under noise; this clip lies above it.) The name's onset length
    /// (`minimumNameOnsetFrames`) stops this clip too, so it is left out here; with it and without the dip, no wake.
    func testANamesOnsetMustSilenceTheLowBandUnderSteadyNoise() throws {
        var off = PipelineSettings()
        off.recognizer.onsetDipMinimum = nil
        XCTAssertEqual(count(try run("nervous_next_tab.flac", noiseDB: -38, settings: off), "wake"), 0)
        off.recognizer.minimumNameOnsetFrames = nil
        XCTAssertEqual(count(try run("nervous_next_tab.flac", noiseDB: -38, settings: off), "wake"), 1)
        var strict = PipelineSettings()
        strict.recognizer.minimumNameOnsetFrames = nil
        strict.recognizer.onsetDipMinimum = 12
        XCTAssertEqual(count(try run("nervous_next_tab.flac", noiseDB: -38, settings: strict), "wake"), 0)
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -38, settings: strict), "wake"), 1)
        // In a quiet room the test is not made (the onset rivals are): the real name wakes at any minimum.
        strict.recognizer.onsetDipMinimum = 1000
        XCTAssertEqual(count(try run("scroll_down.wav", settings: strict), "wake"), 1)
    }

    /// "hey travis, next tab" (flite slt): "travis" (t r ae v ih s) shares the end of "jarvis" but neither its
    /// first sound nor its vowel, so no onset rival fits it better than the name by the margin. A rival with
    /// the first syllable's onset and vowel replaced together does (`firstSyllableRivals`): no wake. Without
    /// those rivals: a wake and "next tab".
    func testANameThatSharesOnlyTheEndOfTheNameDoesNotWake() throws {
        var settings = PipelineSettings()
        settings.recognizer.firstSyllableRivals = false
        try assertOtherNameDoesNotWake("travis_next_tab.flac", unlessWith: settings, target: "next_tab")
    }

    /// "hey harvest, next tab" (flite slt, synthesized here): its "h" is said with "hey", and "arvest" fits all
    /// of "jarvis" but its first sound, past the onset rivals (0.41 nats per frame over the name, margin 0.5).
    /// Aligned with the rest of the name over the name's frames, the "jh" gets 3 frames, the fewest a phone can
    /// take (`minimumNameOnsetFrames` 4): no wake. Without the test: a wake and "next tab". A real "jarvis"
    /// keeps its wake at that minimum, and loses it at one no onset reaches, in a quiet room and under steady
    /// noise (white, -38 dBFS).
    func testANameWithoutTheFirstSoundOfJarvisDoesNotWake() throws {
        let speech = try synthesized("flite") { ["-voice", "slt", "-t", "hey harvest, next tab", "-o", $0] }
        assertHeardButNotWoken(try run(samples: speech))
        var without = PipelineSettings()
        without.recognizer.minimumNameOnsetFrames = nil
        let woken = try run(samples: speech, settings: without)
        XCTAssertEqual(count(woken, "wake"), 1)
        XCTAssertEqual(intents(woken).first?.slots["target"], .string("next_tab"))
        XCTAssertEqual(intents(try run("scroll_down.wav")).map(\.name), ["scroll"])
        var strict = PipelineSettings()
        strict.recognizer.minimumNameOnsetFrames = 40
        XCTAssertEqual(count(try run("scroll_down.wav", settings: strict), "wake"), 0)
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -38), "wake"), 1)
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -38, settings: strict), "wake"), 0)
    }

    /// `fixture`, another name than "jarvis" and a navigate command, wakes nothing; with `settings` (the test
    /// that stops it left out) it wakes, and the command's target is `target`.
    func assertOtherNameDoesNotWake(_ fixture: String, unlessWith settings: PipelineSettings, target: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        assertHeardButNotWoken(try run(fixture), file: file, line: line)
        let without = try run(fixture, settings: settings)
        XCTAssertEqual(count(without, "wake"), 1, file: file, line: line)
        XCTAssertEqual(intents(without).first?.slots["target"], .string(target), file: file, line: line)
    }

    /// "hey jarvis, new tab" in festival's ked voice: its "j" starts with a strong closure, so "d aa r v ah s"
    /// fits the name's frames 0.6 nats per frame better than "jarvis" (itself 2.07 over the phone loop). The
    /// stop an affricate begins with is not an onset rival (`affricateStops`); with "d" among the rivals the
    /// margin of 0.5 dropped this wake, and nothing happened at all.
    func testAJarvisWhoseFirstSoundIsCloseToDStillWakes() throws {
        let events = try run("ked_new_tab.flac")
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).first?.slots["target"], .string("new_tab"))
        // Names that differ in their first sound are still rivals: "nervous" does not wake.
        XCTAssertEqual(count(try run("nervous_next_tab.flac"), "wake"), 0)
    }

    /// Outside steady noise both halves of the name ("jh aa r", "v ah s") must fit their frames
    /// (`quietNameHalvesMargin`), before an early wake is reported and in the second pass. A real "jarvis"
    /// passes the default bar; a bar no half can reach drops the wake on both paths, so nothing happens.
    func testTheNameHalvesAreTestedOutsideNoiseToo() throws {
        XCTAssertEqual(count(try run("scroll_down.wav"), "wake"), 1)
        var strict = PipelineSettings()
        strict.recognizer.quietNameHalvesMargin = 50
        let events = try run("scroll_down.wav", settings: strict)
        XCTAssertEqual(count(events, "wake"), 0)
        XCTAssertEqual(intents(events), [])
        var off = strict
        off.recognizer.quietNameHalvesMargin = nil
        XCTAssertEqual(intents(try run("scroll_down.wav", settings: off)).map(\.name), ["scroll"])
    }

    /// A second pass with no path through its grammar ("Final result does not match the grammar": the word-exit
    /// beam pruned every exit into the final state) decodes the segment again with a wider beam instead of
    /// saying nothing. A beam this narrow leaves this clip no path.
    func testASecondPassWithNoPathIsDecodedAgainWithAWiderBeam() throws {
        var narrow = PipelineSettings()
        narrow.recognizer.secondPassWordBeam = 0.5
        narrow.recognizer.noPathWordBeam = nil
        XCTAssertEqual(intents(try run("scroll_down.wav", settings: narrow)), [])
        narrow.recognizer.noPathWordBeam = RecognizerSettings().noPathWordBeam
        let events = try run("scroll_down.wav", settings: narrow)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
    }

    /// "i asked jarvis to open a new tab": the grammar fits "hey" into the last 60–90 ms of "asked", and "jarvis"
    /// verifies well. The words before the name must last like a spoken "hey" and the whole phrase must verify;
    /// without those checks the same audio wakes.
    func testANameInsideASentenceDoesNotWake() throws {
        assertHeardButNotWoken(try run("asked_jarvis.flac"))
        var settings = PipelineSettings()
        settings.recognizer.minimumLeadDuration = 0
        settings.recognizer.noisyMinimumLeadDuration = 0
        settings.recognizer.wakePhraseAllowance = nil
        XCTAssertEqual(count(try run("asked_jarvis.flac", settings: settings), "wake"), 1,
                       "the name alone is heard as the wake phrase")
        // Here the lead's duration is what stops it: the whole phrase verifies within its allowance.
        settings.recognizer.wakePhraseAllowance = RecognizerSettings().wakePhraseAllowance
        XCTAssertEqual(count(try run("asked_jarvis.flac", settings: settings), "wake"), 1)
    }

    /// The lead of a wake phrase ("hey") is measured on its own frames: a pause before the name does not
    /// lengthen it. A one-word phrase has no lead. Under steady noise the minimum falls (0.1 → 0.08 s).
    func testWakePhraseLeadIsMeasuredOnItsOwnFrames() throws {
        let settings = RecognizerSettings()
        let heyJarvis = try UtteranceRecognizer(commands: .builtin(), wakePhrase: "hey jarvis", settings: settings)
        func phrase(hey: ClosedRange<Int>, jarvis: ClosedRange<Int>) -> ArraySlice<RecognizedWord> {
            [RecognizedWord(word: "hey", startFrame: hey.lowerBound, endFrame: hey.upperBound),
             RecognizedWord(word: "jarvis", startFrame: jarvis.lowerBound, endFrame: jarvis.upperBound)][...]
        }
        XCTAssertTrue(try heyJarvis.leadLastsLongEnough(phrase(hey: 0...9, jarvis: 10...50)))
        XCTAssertFalse(try heyJarvis.leadLastsLongEnough(phrase(hey: 0...8, jarvis: 9...50)))
        XCTAssertFalse(try heyJarvis.leadLastsLongEnough(phrase(hey: 0...6, jarvis: 40...80)),
                       "a pause after a 70 ms \"hey\" is not part of it")
        heyJarvis.segmentNoise = .init(snrDB: 15, noiseDB: 50, floorSpreadDB: 1)   // steady noise
        XCTAssertTrue(try heyJarvis.leadLastsLongEnough(phrase(hey: 0...7, jarvis: 8...50)))
        XCTAssertFalse(try heyJarvis.leadLastsLongEnough(phrase(hey: 0...6, jarvis: 7...50)))
        let jarvis = try UtteranceRecognizer(commands: .builtin(), wakePhrase: "jarvis", settings: settings)
        XCTAssertTrue(try jarvis.leadLastsLongEnough([RecognizedWord(word: "jarvis", startFrame: 0, endFrame: 40)][...]))
    }

    /// espeak-ng's Scottish voice says a quick "hey" (7–8 frames): under the minimum a lead must last, but it
    /// verifies as "hey" with the pause before it, so it counts; without that allowance nothing happens.
    /// "i asked jarvis" (a 6-frame "hey" fitted into "asked") stays out (`testANameInsideASentenceDoesNotWake`).
    func testAQuickHeyAfterAPauseCounts() throws {
        XCTAssertEqual(intents(try run("espeak_scotland_new_tab.flac")).map { $0.slots["target"] },
                       [.string("new_tab")])
        var settings = PipelineSettings()
        settings.recognizer.shortLeadDuration = nil
        XCTAssertEqual(count(try run("espeak_scotland_new_tab.flac", settings: settings), "wake"), 0,
                       "the lead is shorter than the minimum")
        settings.recognizer.shortLeadDuration = RecognizerSettings().shortLeadDuration
        settings.recognizer.shortLeadMargin = 1
        XCTAssertEqual(count(try run("espeak_scotland_new_tab.flac", settings: settings), "wake"), 0,
                       "the lead must verify as the lead by the margin")
    }

    func testJarvisAloneAsWakePhrase() throws {
        var settings = PipelineSettings()
        settings.wakePhrase = "jarvis"
        let i = intents(try run("new_tab_jarvis_only.flac", settings: settings))
        XCTAssertEqual(i.map { $0.slots["target"] }, [.string("new_tab")])
    }

    func testResultsDoNotDependOnTheChunkSize() throws {
        let strip = { (events: [Event]) in events.map { $0.json.serialized() }.filter { !$0.contains("\"end\"") } }
        let a = strip(try run("session.wav", chunk: 160))
        let b = strip(try run("session.wav", chunk: 16_000))
        XCTAssertEqual(a, b)
        XCTAssertFalse(a.isEmpty)
    }

    /// Samples lost before the pipeline (a capture ring overrun) count on the audio clock: the same audio after
    /// a skip gives the same events, later by exactly the skipped time.
    func testSkippedSamplesCountOnTheAudioClock() throws {
        let samples = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        let plain = try run(samples: samples)
        var skipped: [Event] = []
        let pipeline = try Pipeline(settings: PipelineSettings()) { skipped.append($0) }
        try pipeline.skip(samples: 32_000)
        try feed(samples, to: pipeline)
        let serialized = { (events: [Event]) in events.filter { $0.type != "end" }.map { $0.json.serialized() } }
        XCTAssertEqual(intents(plain).map(\.name), ["scroll"])
        XCTAssertEqual(serialized(skipped), serialized(plain.map { $0.shifted(by: 2) }))
        XCTAssertEqual(pipeline.stats.audioSeconds, 2 + Double(samples.count) / 16000, accuracy: 0.02)
    }

    /// Speech in progress at a gap ends where the audio stopped, and the stream goes on after the gap.
    func testAGapEndsSpeechInProgressWhereTheAudioStopped() throws {
        let samples = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        let plain = try run(samples: samples)
        let speechStart = try XCTUnwrap(plain.first { $0.type == "speech_start" }).t
        let wake = try XCTUnwrap(plain.first { $0.type == "wake" }).t
        var events: [Event] = []
        let pipeline = try Pipeline(settings: PipelineSettings()) { events.append($0) }
        // Cut 0.3 s into the speech, on a frame boundary, with 100 samples of a partial frame (lost too).
        let cut = AudioFormat.samples(speechStart + 0.3) / AudioFormat.frameSamples * AudioFormat.frameSamples
        try pipeline.process(Array(samples[..<(cut + 100)]))
        XCTAssertEqual(events.last?.type, "speech_start")
        try pipeline.skip(samples: 16_000)
        XCTAssertEqual(events.first { $0.type == "speech_end" }?.t ?? -1, AudioFormat.seconds(cut), accuracy: 1e-9)
        XCTAssertEqual(intents(events), [], "a third of a second of speech is not a command")
        let afterGap = AudioFormat.seconds(cut + 100 + 16_000)
        try feed(samples, to: pipeline)
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
        XCTAssertEqual(events.last { $0.type == "wake" }?.t ?? -1, afterGap + wake, accuracy: 0.1)
        XCTAssertEqual(pipeline.stats.audioSeconds, afterGap + Double(samples.count) / 16000, accuracy: 0.02)
    }

    /// Without the VAD the stream is one segment; after a gap, another one from the first frame after it.
    func testWithoutTheVADAGapStartsANewSegment() throws {
        let samples = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        var settings = PipelineSettings()
        settings.vadEnabled = false
        var events: [Event] = []
        let pipeline = try Pipeline(settings: settings) { events.append($0) }
        try pipeline.process(Array(samples[..<3200]))
        try pipeline.skip(samples: 16_000)
        try feed(samples, to: pipeline)
        XCTAssertEqual(events.filter { $0.type == "speech_start" }.map(\.t), [0, AudioFormat.seconds(3200 + 16_000)])
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
    }

    /// The decoder runs continuously (no VAD): it must restart at 55 s, and the command spoken across the
    /// seam ("hey jarvis" ends at 54.97 s, "scroll up" follows) must be recognised exactly once. (flite's "scroll
    /// up" there is heard as "page up", which the frequency warp rescored as "scroll up eight" and rejected as
    /// unsure: this test is about the seam, so it runs without the warp.)
    func testRestartAt55SecondsKeepsThePhraseAtTheSeam() throws {
        var settings = unwarped
        settings.vadEnabled = false
        let events = try run("restart_seam.flac", settings: settings)
        let restarts = events.filter { $0.type == "restart" }
        XCTAssertEqual(restarts.count, 1)
        XCTAssertEqual(restarts.first?.t ?? 0, 55, accuracy: 0.05)
        let i = intents(events)
        XCTAssertEqual(i.map(\.name), ["scroll", "navigate"])
        XCTAssertEqual(i.first?.slots["direction"], .string("up"))
        XCTAssertEqual(i.last?.slots["target"], .string("next_tab"))
    }

    /// Streaming wake: the wake phrase is reported while the utterance goes on (before its `speech_end`),
    /// and the command after it is still recognised.
    func testWakeIsReportedBeforeTheUtteranceEnds() throws {
        let events = try run("scroll_down.wav")
        let types = events.map(\.type).filter { ["wake", "speech_end", "intent"].contains($0) }
        XCTAssertEqual(types, ["wake", "speech_end", "intent"])
        let result = try Benchmark.run(path: fixtures.appendingPathComponent("session.wav").path,
                                       settings: PipelineSettings())
        XCTAssertEqual(result.wakes, 3)
        XCTAssertEqual(result.intents, 3)
        XCTAssertLessThanOrEqual(BenchmarkResult.median(result.wakeLatencies) ?? 9, 0.3)
    }

    /// `jarvis bench`'s stages: a search spends CPU in every stage it passes through (the live decoder, its wake
    /// candidate, the second pass, the language model's load and decodes), and the stages never add up to more
    /// than the run took; speech without the wake phrase never asks the language model.
    func testBenchmarkSaysWhereTheCPUGoes() throws {
        let search = try Benchmark.run(path: fixtures.appendingPathComponent("search_pizza.wav").path,
                                       settings: PipelineSettings())
        XCTAssertEqual(search.intents, 1)
        for stage in [StageClock.Stage.liveDecoder, .wakeCandidates, .secondPass, .languageModel, .languageModelLoad] {
            XCTAssertGreaterThan(search.stageSeconds[stage] ?? 0, 0, "\(stage)")
        }
        XCTAssertLessThanOrEqual(search.stageSeconds.values.reduce(0, +), search.cpuSeconds * 1.02 + 0.01)
        XCTAssertEqual(search.stagePercents.count, StageClock.Stage.allCases.count + 1)
        XCTAssertEqual(search.stagePercents.reduce(0, +), 100, accuracy: 2)
        let noWake = try Benchmark.run(path: fixtures.appendingPathComponent("no_wake.flac").path,
                                       settings: PipelineSettings())
        XCTAssertEqual(noWake.wakes, 0)
        XCTAssertGreaterThan(noWake.stageSeconds[.liveDecoder] ?? 0, 0)
        XCTAssertNil(noWake.stageSeconds[.languageModel])
        XCTAssertNil(noWake.stageSeconds[.languageModelLoad])
    }

    /// An early wake needs the wake search to hear the phrase around the live decoder's candidate too; when it
    /// cannot agree (a negative slack), the wake is reported after the utterance instead, with the same intent.
    func testEarlyWakeNeedsTheWakeSearchToAgree() throws {
        var settings = PipelineSettings()
        settings.recognizer.earlyConfirmSlack = -1
        let events = try run("scroll_down.wav", settings: settings)
        let types = events.map(\.type).filter { ["wake", "speech_end", "intent"].contains($0) }
        XCTAssertEqual(types, ["speech_end", "wake", "intent"])
        XCTAssertEqual(intents(events).first?.slots["direction"], .string("down"))
    }

    /// Without the streaming wake the wake comes after the utterance, with the same intents.
    func testStreamingWakeDoesNotChangeTheIntents() throws {
        var settings = PipelineSettings()
        settings.recognizer.streamingWake = false
        let batch = try run("session.wav", settings: settings)
        let streamed = try run("session.wav")
        XCTAssertEqual(intents(batch), intents(streamed))
        XCTAssertEqual(count(batch, "wake"), count(streamed, "wake"))
    }

    /// The live decoder starts over every `liveWindow` seconds on the last `liveOverlap`: wherever its seams
    /// fall, the same wake phrases are reported at the same audio times, with the same intents.
    func testLiveDecoderStartingOverKeepsWakesAndIntents() throws {
        let reference = try run("session.wav")
        let referenceWakes = reference.filter { $0.type == "wake" }.map(\.t)
        XCTAssertEqual(referenceWakes.count, 3)
        for window in [1.7, 2.1, 2.6] {
            var settings = PipelineSettings()
            settings.recognizer.liveWindow = window
            let events = try run("session.wav", settings: settings)
            XCTAssertEqual(intents(events), intents(reference), "live window \(window) s")
            let wakes = events.filter { $0.type == "wake" }.map(\.t)
            XCTAssertEqual(wakes.count, referenceWakes.count, "live window \(window) s")
            for (a, b) in zip(wakes, referenceWakes) { XCTAssertEqual(a, b, accuracy: 0.15, "live window \(window) s") }
        }
    }

    func testSeamFixtureWithTheVAD() throws {
        let i = intents(try run("restart_seam.flac"))
        XCTAssertEqual(i.map(\.name), ["scroll", "navigate"])
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension PipelineTests {
    func testMutedPipelineIgnoresTheWakePhraseButInjectWorks() throws {
        var events: [Event] = []
        let pipeline = try Pipeline(settings: PipelineSettings()) { events.append($0) }
        pipeline.muted = true
        let samples = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        try pipeline.process(samples)
        try pipeline.finish()
        XCTAssertEqual(count(events, "wake"), 0)
        XCTAssertEqual(count(events, "intent"), 0)
        XCTAssertEqual(count(events, "speech_start"), 1, "the VAD still runs")

        events.removeAll()
        pipeline.inject(text: "Scroll down, three!")
        XCTAssertEqual(events.map(\.type), ["transcript", "intent", "action"])
        XCTAssertEqual(intents(events).first?.slots, ["direction": .string("down"), "amount": .int(3)])
        events.removeAll()
        pipeline.inject(text: "make me a sandwich")
        XCTAssertEqual(events.map(\.type), ["transcript", "rejected"])

        // Unmuted again, the same audio is a command.
        pipeline.muted = false
        events.removeAll()
        try pipeline.process(samples)
        try pipeline.finish()
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
    }
}

extension PipelineTests {
    func testLanguageModelIsReleasedWhenIdleAndReloadedForTheNextSearch() throws {
        let search = try readAll(fixtures.appendingPathComponent("search_pizza.wav").path)
        // The fixture's own quiet noise bed (its first 0.8 s) between two searches.
        let bed = Array(search[0..<AudioFormat.samples(0.8)])
        func queries(releaseAfter: Double?, check: (Pipeline, Int) -> Void) throws -> [SlotValue?] {
            var events: [Event] = []
            var settings = PipelineSettings()
            settings.releaseLanguageModelAfter = releaseAfter
            let pipeline = try Pipeline(settings: settings) { events.append($0) }
            check(pipeline, 0)
            try pipeline.process(search)
            check(pipeline, 1)
            try pipeline.process(bed)
            check(pipeline, 2)
            for _ in 0..<3 { try pipeline.process(bed) }
            check(pipeline, 3)
            try pipeline.process(search)
            try pipeline.finish()
            return intents(events).map { $0.slots["query"] }
        }
        let released = try queries(releaseAfter: 2) { pipeline, step in
            XCTAssertEqual(pipeline.languageModelLoaded, [false, true, true, false][step], "step \(step)")
        }
        XCTAssertEqual(released.count, 2)
        XCTAssertEqual(released.first, .string("pizza recipes"))
        // Reloading changes nothing: the same stream gives the same queries with the model kept loaded.
        XCTAssertEqual(released, try queries(releaseAfter: nil) { pipeline, step in
            XCTAssertEqual(pipeline.languageModelLoaded, step > 0)
        })
    }
}

extension PipelineTests {
    func testCommandWordInsideALongerSentenceIsNotACommand() throws {
        let events = try run("click_in_sentence.flac")
        XCTAssertEqual(intents(events), [])
        XCTAssertEqual(rejectionReasons(events), count(events, "wake") > 0 ? ["speech-continues"] : [])
        // A command followed by a pause is still a command, and a search's query is not "other speech".
        XCTAssertEqual(intents(try run("scroll_down.wav")).map(\.name), ["scroll"])
        XCTAssertEqual(intents(try run("search_pizza.wav")).map(\.name), ["search"])
    }

    /// Speech after a command 10 dB or more under the wake phrase is somebody else's (`quietTrailingSpeechDrop`):
    /// the command stands. The speech is the end of `click_in_sentence.flac` (2.6–4.7 s: "...and then we all
    /// went home for dinner"), a room that goes on talking after the command, or the talker's own sentence.
    /// Measured here: the wake phrase at 79 dB, the speech after it 3 dB under it at its own level, 13 dB under
    /// it at -14 dB.
    func testQuietSpeechAfterACommandDoesNotMakeItASentence() throws {
        let quiet = try scrollDown(then: "click_in_sentence.flac", 2.6...4.7, gainDB: -14)
        XCTAssertEqual(intents(try run(samples: quiet)).map(\.slots), [["direction": .string("down"), "amount": .int(1)]])
        var any = PipelineSettings()
        any.quietTrailingSpeechDrop = nil
        let anySpeech = try run(samples: quiet, settings: any)
        XCTAssertEqual(intents(anySpeech), [])
        XCTAssertEqual(rejectionReasons(anySpeech), ["speech-continues"])
        let own = try run(samples: try scrollDown(then: "click_in_sentence.flac", 2.6...4.7, gainDB: 0))
        XCTAssertEqual(intents(own), [])
        XCTAssertEqual(rejectionReasons(own), ["speech-continues"])
    }

    /// Talk that was going on before the wake phrase, quieter than the talker, and goes on after the command
    /// at the same level is the room's (`RecognizerSettings.roomUnderTalker`): "scroll down" with other speech 8 dB under it
    /// before "hey jarvis" and after "down" scrolls. Without the comparison, or without the talk before the
    /// wake phrase, the same speech after the command makes it `speech-continues` (8 dB is within
    /// `quietTrailingSpeechDrop`).
    func testTheRoomsTalkGoingOnAfterACommandIsNotTheTalkers() throws {
        let gain = pow(10, -8.0 / 20)
        let talk = try readAll(fixtures.appendingPathComponent("click_in_sentence.flac").path)
        let before = talk[AudioFormat.samples(1.4)..<AudioFormat.samples(3.6)].map { Int16(Double($0) * gain) }
        let after = try scrollDown(then: "click_in_sentence.flac", 2.6...4.7, gainDB: -8)
        let inATalkingRoom = before + after
        XCTAssertEqual(intents(try run(samples: inATalkingRoom)).map(\.slots),
                       [["direction": .string("down"), "amount": .int(1)]])
        var noRoom = PipelineSettings()
        noRoom.recognizer.roomUnderTalker = nil
        let compared = try run(samples: inATalkingRoom, settings: noRoom)
        XCTAssertEqual(intents(compared), [])
        XCTAssertEqual(rejectionReasons(compared), ["speech-continues"])
        let quietBefore = try run(samples: after)
        XCTAssertEqual(intents(quietBefore), [])
        XCTAssertEqual(rejectionReasons(quietBefore), ["speech-continues"])
    }
}

extension PipelineTests {
    /// "set a timer for ten minutes": the grammar hears "search for", the language model does not hear "for"
    /// before the query, so it is rejected. Without the check the same audio opens a search.
    func testSearchWhoseTriggerTheLanguageModelDidNotHearIsRejected() throws {
        var unchecked = PipelineSettings()
        unchecked.confirmFreeTextTrigger = false
        try assertCheckRejects("set_timer.flac", reason: "not-a-command", unchecked: unchecked, otherwise: "search")
    }

    /// flite kal's "page down": an 8 kHz voice resampled, nothing above 4 kHz under the speech, devset.py's quiet
    /// noise around it. With its high band filled (`HighBandFill`) it scrolls a page down; without, the second
    /// pass hears "page up".
    func testBandLimitedSpeechIsHeardWithItsHighBandFilled() throws {
        let events = try run("kal_page_down.flac")
        XCTAssertEqual(intents(events).map(\.slots),
                       [["direction": .string("down"), "amount": .int(1), "unit": .string("page")]])
        var unfilled = PipelineSettings()
        unfilled.recognizer.highBandFill = nil
        XCTAssertEqual(intents(try run("kal_page_down.flac", settings: unfilled)).map { $0.slots["direction"] },
                       [.string("up")])
    }

    /// flite kal's "search for hiking trails" (8 kHz, resampled): its final "s" keeps only a trace under 4 kHz.
    /// The high-band fill that follows the top of the speech band (`HighBandFill.followsUpperBandDB`) gives it
    /// its hiss back, and the query ends in "trails"; with a steady fill only, the language model hears "trail".
    /// (Without the fill the word pairs of search queries, `queryModelWeight`, also make it "trails": the fill is
    /// measured without them.)
    func testAFricativeOfBandLimitedSpeechIsHeardWithAFillThatFollowsIt() throws {
        var general = PipelineSettings()
        general.recognizer.queryModelWeight = nil
        assertSearch(try run("kal_hiking_trails.flac", settings: general), query: "hiking trails")
        var steady = general
        steady.recognizer.highBandFill?.followsUpperBandDB = nil
        assertSearch(try run("kal_hiking_trails.flac", settings: steady), query: "hiking trail")
        assertSearch(try run("kal_hiking_trails.flac"), query: "hiking trails")
    }

    /// espeak's "search for football scores" under babble: the grammar hears "search for" and the query's
    /// phones, the general language model "but the score | football scores" (no "for"), the model expecting a
    /// lead "but that for | football scores". Its "for" confirms the grammar's, and the search is taken; without
    /// it the search is rejected as the check above rejects "set a timer for". (With the model as installed: the
    /// model adapted to speech in noise, `babbleAdaptation`, makes the general model hear "for" itself.)
    func testTheLeadModelMayConfirmTheWordBeforeTheQuery() throws {
        var installed = PipelineSettings()
        installed.recognizer.babbleAdaptation = false
        let events = try run("espeak_search_football_babble.flac", settings: installed)
        XCTAssertEqual(intents(events).map(\.name), ["search"])
        XCTAssertEqual(intents(events).map { $0.slots["query"] }, [.string("football scores")])
        XCTAssertEqual(intents(try run("espeak_search_football_babble.flac")), intents(events), "adapted: the same search")
        var generalOnly = installed
        generalOnly.triggerHeardByLeadModel = false
        let without = try run("espeak_search_football_babble.flac", settings: generalOnly)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(rejectionReasons(without), ["not-a-command"])
    }

    /// The fixture `command`, then `after` seconds of silence, under babble from `from` seconds on, `underDB` dB
    /// under the command's active level (devset.py's: the RMS of the 20 ms frames louder than a tenth of the
    /// loudest). The babble is three streams of other fixtures' sentences after their "hey jarvis" (from 1.9 s):
    /// "tell me a joke" and "set the volume to seven", "what a lovely day it is" and "set a timer for ten minutes"
    /// (flite kal16), and the latter two the other way round; it repeats if the command is longer.
    func babbleMix(_ command: String, from: Double, underDB: Double, after: Double = 0) throws -> [Int16] {
        func tail(_ name: String) throws -> [Double] {
            try readAll(fixtures.appendingPathComponent(name).path).dropFirst(30_400).map(Double.init)
        }
        let joke = try tail("tell_me_a_joke.flac"), volume = try tail("custom_volume.flac")
        let day = try tail("not_a_command.flac"), timer = try tail("set_timer.flac")
        let streams = [joke + volume, day + timer, timer + day]
        let length = streams.map(\.count).min() ?? 0
        let babble = (0..<length).map { i in streams.reduce(0) { $0 + $1[i] } }
        func activeLevel(_ x: [Double]) -> Double {
            let frames = stride(from: 0, to: x.count / 320 * 320, by: 320).map { start in
                (x[start..<(start + 320)].reduce(0) { $0 + $1 * $1 } / 320).squareRoot()
            }
            let loudest = frames.max() ?? 0
            let active = frames.filter { $0 > 0.1 * loudest }
            return active.isEmpty ? 1 : (active.reduce(0) { $0 + $1 * $1 } / Double(active.count)).squareRoot()
        }
        let speech = try readAll(fixtures.appendingPathComponent(command).path)
            + [Int16](repeating: 0, count: AudioFormat.samples(after))
        let start = Int(from * 16_000)
        let under = (0..<(speech.count - start)).map { babble[$0 % length] }
        let gain = activeLevel(speech.map(Double.init)) / pow(10, underDB / 20) / activeLevel(under)
        return speech.indices.map { i in
            guard i >= start else { return speech[i] }
            return Int16(max(-32768, min(32767, (Double(speech[i]) + under[i - start] * gain).rounded())))
        }
    }

    /// Under babble 10 dB down, "hey jarvis, new tab" by espeak-ng's high voice (en-us+f3) and by festival's ked
    /// do not wake; heard again with the babble floored, each gives its command, once.
    func testBabbleIsHeardAgainWithItsFloorWhenItDidNotWake() throws {
        var unfloored = PipelineSettings()
        unfloored.babbleFloor = nil
        for (fixture, from, target) in [("espeak_f3_new_tab.flac", 0.8, "new_tab"), ("ked_new_tab.flac", 1.0, "new_tab")] {
            let mixed = try babbleMix(fixture, from: from, underDB: 10)
            XCTAssertEqual(count(try run(samples: mixed, settings: unfloored), "wake"), 0, fixture)
            let events = try run(samples: mixed)
            XCTAssertEqual(intents(events).map { $0.slots["target"] }, [.string(target)], fixture)
            XCTAssertEqual(count(events, "wake"), 1, fixture)
        }
        // flite slt's "hey jarvis, scroll down" there wakes, and with the model as installed its words are
        // rejected: they stay rejected (a talking room's sentences after "hey jarvis" became commands when heard
        // again). With the model adapted to speech in noise it is "scroll down eight" (the babble's "eight").
        var adaptedNot = PipelineSettings()
        adaptedNot.recognizer.babbleAdaptation = false
        unfloored.recognizer.babbleAdaptation = false
        let scroll = try babbleMix("scroll_down.wav", from: 1.0, underDB: 10)
        let events = try run(samples: scroll, settings: adaptedNot)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(count(events, "rejected"), 1)
        XCTAssertEqual(events, try run(samples: scroll, settings: unfloored))
    }

    /// The wake threshold is the user's sensitivity (`RecognizerSettings.setWakeThreshold`, the config's
    /// `wake_threshold`): espeak-ng's British RP voice says "jarvis" further from the model's American one, its
    /// name verifying 0.6–0.8 nats per frame over free speech, under the default bar (0.8). Lowered to 0.6,
    /// "hey jarvis, go back" wakes and goes back; at the default nothing happens.
    func testALowerWakeThresholdWakesForAnAccentTheModelFitsLess() throws {
        let speech = try synthesized("espeak-ng") { ["-v", "en-gb-x-rp", "-w", $0, "hey jarvis, go back"] }
        XCTAssertEqual(intents(try run(samples: speech)).count, 0)
        var sensitive = PipelineSettings()
        sensitive.recognizer.setWakeThreshold(0.6)
        let events = try run(samples: speech, settings: sensitive)
        XCTAssertEqual(intents(events).map { $0.slots["target"] }, [.string("back")])
    }

    /// A room already talking goes on after the command: festival ked's "hey jarvis, new tab" under babble 10 dB
    /// down that runs on for a second after it wakes only when heard again floored, and there the talk after "tab",
    /// 10 dB or more under the wake phrase, is the room's (`quietTrailingSpeechFlooredConfidence`; the command is
    /// 0.995 sure or more): the tab opens. Without the level check in the floored hearing that talk makes the
    /// command part of a sentence, and nothing happens.
    func testTheRoomsTalkAfterACommandHeardFlooredIsNotTheTalkers() throws {
        var unfloored = PipelineSettings()
        unfloored.babbleFloor = nil
        var anySpeech = PipelineSettings()
        anySpeech.quietTrailingSpeechFlooredConfidence = nil
        let mixed = try babbleMix("ked_new_tab.flac", from: 1.0, underDB: 10, after: 1.0)
        XCTAssertEqual(count(try run(samples: mixed, settings: unfloored), "wake"), 0)
        XCTAssertEqual(intents(try run(samples: mixed)).map { $0.slots["target"] }, [.string("new_tab")])
        let withoutCheck = try run(samples: mixed, settings: anySpeech)
        XCTAssertEqual(intents(withoutCheck), [])
        XCTAssertEqual(count(withoutCheck, "wake"), 0, "the floored hearing's events are dropped with its command")
    }

    /// flite slt's "hey jarvis, page down" in a room already talking (the babble set's clip): heard as it is, the
    /// name verifies under the bar and "page down" is sure; heard again floored, the name verifies and "page down"
    /// is unsure. The two hearings agree, so the command is taken as first heard
    /// (`PipelineSettings.babbleFloorTakesCommandAsHeard`), once; without that, nothing happens.
    func testAFlooredWakeTakesTheCommandAsFirstHeardWhenTheHearingsAgree() throws {
        let events = try run("page_down_talking_room.flac")
        XCTAssertEqual(intents(events).map { $0.slots["direction"] }, [.string("down")])
        XCTAssertEqual(intents(events).map { $0.slots["unit"] }, [.string("page")])
        XCTAssertEqual(count(events, "wake"), 1)
        var floorOnly = PipelineSettings()
        floorOnly.babbleFloorTakesCommandAsHeard = false
        let without = try run("page_down_talking_room.flac", settings: floorOnly)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(count(without, "wake"), 0)
    }

    /// Under babble 7 dB down, espeak-ng's high voice's "hey jarvis, new tab" is heard with the acoustic model
    /// adapted to speech in noise (`RecognizerSettings.babbleAdaptation`), and not without it. Clean speech and
    /// steady noise are heard by the model as installed: the same events either way.
    func testBabbleIsHeardWithTheModelAdaptedToSpeechInNoise() throws {
        var unadapted = PipelineSettings()
        unadapted.recognizer.babbleAdaptation = false
        let mixed = try babbleMix("espeak_f3_new_tab.flac", from: 0, underDB: 7)
        XCTAssertEqual(intents(try run(samples: mixed)).map { $0.slots["target"] }, [.string("new_tab")])
        XCTAssertEqual(intents(try run(samples: mixed, settings: unadapted)), [])
        for fixture in ["scroll_down.wav", "noisy_page_down.wav"] {
            XCTAssertEqual(try run(fixture), try run(fixture, settings: unadapted), fixture)
        }
    }

    /// "i asked jarvis to open a new tab" under babble 10 dB down from 1 s wakes (no "hey" was said), and the
    /// grammar hears "please open a new tab", unsure, then five phones. The language model hears "i was thrilled
    /// and i have that" there. The command's fit (`PipelineSettings.commandFitLoss`) is measured with the model's
    /// words before the command and over the phones around it ("i was please open a new tab that"): 0.60 nats
    /// per frame worse, under the 0.8 allowed, so it stands; the words were said. Measured with the model's words
    /// up to the phones before the command, the command twice over ("i was thrilled and i have please open a new
    /// tab"), it lost 1.0 and was rejected. The check does reject it at 0.5 allowed, and nothing does without it.
    func testAnUnsureCommandInNoiseMustFitItsAudioAsWellAsTheLanguageModelsWords() throws {
        let mixed = try babbleMix("asked_jarvis.flac", from: 1.0, underDB: 10)
        let events = try run(samples: mixed)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).map { $0.slots["target"] }, [.string("new_tab")])
        var strict = PipelineSettings()
        strict.commandFitLoss = 0.5
        let rejected = try run(samples: mixed, settings: strict)
        XCTAssertEqual(intents(rejected), [])
        XCTAssertEqual(rejectionReasons(rejected), ["not-heard-as-command"])
        var unchecked = strict
        unchecked.commandFitLoss = nil
        XCTAssertEqual(intents(try run(samples: mixed, settings: unchecked)).map { $0.slots["target"] }, [.string("new_tab")])
        // Only commands under `commandFitCheckBelow` are checked: under 0.5 this one (about 0.68) is not.
        var sureBelow = strict
        sureBelow.commandFitCheckBelow = 0.5
        XCTAssertEqual(intents(try run(samples: mixed, settings: sureBelow)).count, 1)
    }

    /// `fixture` gives a wake and one rejection for `reason`, no intent; with the check off (`unchecked`) the
    /// same audio gives the intent `otherwise`: the check does the work.
    func assertCheckRejects(_ fixture: String, reason: String, unchecked: PipelineSettings, otherwise: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        try assertCheckRejects(reason: reason, unchecked: unchecked, otherwise: otherwise, file: file, line: line) {
            try run(fixture, settings: $0)
        }
    }

    /// The same for audio that `run` hears with the settings it is given.
    func assertCheckRejects(reason: String, unchecked: PipelineSettings, otherwise: String,
                            file: StaticString = #filePath, line: UInt = #line,
                            _ run: (PipelineSettings) throws -> [Event]) throws {
        let events = try run(PipelineSettings())
        XCTAssertEqual(count(events, "wake"), 1, file: file, line: line)
        XCTAssertEqual(intents(events), [], file: file, line: line)
        XCTAssertEqual(rejectionReasons(events), [reason], file: file, line: line)
        XCTAssertEqual(intents(try run(unchecked)).map(\.name), [otherwise], file: file, line: line)
    }

    /// The language model's words split at any sample (where a command starts, where phones after it start),
    /// by each word's middle, 50 ms of tolerance going to the words from the sample on; normalised as `words`.
    func testFreeTextWordsSplitAtASample() {
        typealias Word = UtteranceRecognizer.FreeText.TimedWord
        var free = UtteranceRecognizer.FreeText(before: ["this", "go", "to", "github"], text: "shopping list")
        free.timedWords = [Word(word: "this", middleSample: 1_000), Word(word: "go", middleSample: 8_000),
                           Word(word: "to", middleSample: 10_000), Word(word: "github", middleSample: 14_000),
                           Word(word: "shopping-list", middleSample: 30_000)]
        XCTAssertEqual(free.words(splitAt: 6_000, before: true), ["this"])
        XCTAssertEqual(free.words(splitAt: 6_000, before: false), ["go", "to", "github", "shopping", "list"])
        XCTAssertEqual(free.words(splitAt: 20_000, before: false), ["shopping", "list"])
        // A word whose middle is under 800 samples (5 frames) before the sample is counted from it on.
        XCTAssertEqual(free.words(splitAt: 8_700, before: true), ["this"])
        XCTAssertEqual(free.words(splitAt: 8_900, before: true), ["this", "go"])
        XCTAssertEqual(free.words(splitAt: 0, before: true), [])
        XCTAssertEqual(free.words(splitAt: 40_000, before: false), [])
    }

    func testTriggerWordsMatchBySpellingOrPronunciation() throws {
        let recognizer = try UtteranceRecognizer(commands: .builtin(), wakePhrase: "hey jarvis",
                                                 settings: RecognizerSettings())
        XCTAssertTrue(try recognizer.heard("for", in: ["search", "for"]))
        XCTAssertTrue(try recognizer.heard("for", in: ["thirty", "four"]), "same pronunciation")
        XCTAssertFalse(try recognizer.heard("google", in: ["good"]))
        XCTAssertFalse(try recognizer.heard("for", in: []))
    }

    /// A site's name heard as two words: spelt together ("you tube": youtube is Y UW T Y UW B, "you tube" Y UW T
    /// UW B) or said together ("red it" for reddit), on any of the paths, and only as neighbours.
    func testAWordHeardInPartsBySpellingOrPronunciation() throws {
        let recognizer = try UtteranceRecognizer(commands: .builtin(), wakePhrase: "hey jarvis",
                                                 settings: RecognizerSettings())
        XCTAssertFalse(try recognizer.heard("youtube", in: ["so", "could", "you", "open", "you", "tube"]))
        XCTAssertTrue(try recognizer.heardInParts("youtube", on: [["so", "could", "you", "open", "you", "tube"]]))
        XCTAssertTrue(try recognizer.heardInParts("reddit", on: [["open"], ["go", "to", "red", "it"]]))
        XCTAssertTrue(try recognizer.heardInParts("facebook", on: [["open", "face", "book"]]))
        XCTAssertFalse(try recognizer.heardInParts("youtube", on: [["tube", "you"], ["you", "the", "tube"]]))
        XCTAssertFalse(try recognizer.heardInParts("reddit", on: [["red"], ["it"], []]))
        XCTAssertFalse(try recognizer.heardInParts("tab", on: [["new", "tab"]]), "one word is not parts")
    }

    /// One pipeline reset between files gives the events of a fresh pipeline (`jarvis eval` relies on it).
    /// `isBetweenUtterances` after every chunk, beside what the events said so far: no speech segment is open,
    /// and every wake phrase has had its command or its rejection.
    func betweenUtterances(_ samples: [Int16]) throws -> (pipeline: [Bool], events: [Bool], all: [Event]) {
        var events: [Event] = []
        let pipeline = try Pipeline(settings: PipelineSettings()) { events.append($0) }
        var between: [Bool] = [], expected: [Bool] = []
        for start in stride(from: 0, to: samples.count, by: 1600) {
            try pipeline.process(Array(samples[start..<min(samples.count, start + 1600)]))
            between.append(pipeline.isBetweenUtterances)
            func last(_ types: Set<String>) -> Int { events.lastIndex { types.contains($0.type) } ?? -1 }
            expected.append(last(["speech_start"]) <= last(["speech_end"]) && last(["wake"]) <= last(["intent", "rejected"]))
        }
        try pipeline.finish()
        return (between, expected, events)
    }

    func testAPipelineIsBetweenUtterancesOnlyWhenNoCommandIsHeardOrAwaited() throws {
        let session = try betweenUtterances(try readAll(fixtures.appendingPathComponent("session.wav").path))
        XCTAssertEqual(session.pipeline, session.events)
        XCTAssertEqual(intents(session.all).count, 3)
        // Speech 0.8–2.09 s, 4.09–5.58 s, 7.58–9.32 s, each segment closing 0.4 s after it (the hangover).
        for (t, between) in [(0.5, true), (1.5, false), (3.5, true), (5.0, false), (7.0, true), (9.0, false)] {
            XCTAssertEqual(session.pipeline[Int(t * 10)], between, "at \(t) s")
        }
        // "hey jarvis", 1.6 s of the fixture's noise, then "scroll down" as an utterance of its own: the wake
        // phrase waits for its command (the follow-up window) between the two segments.
        let words = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        let split = 24_320   // 1.52 s, in the 80 ms pause after "jarvis"
        let apart = Array(words[..<split]) + words[..<12_800] + words[..<12_800] + words[split...]
        let followUp = try betweenUtterances(apart)
        XCTAssertEqual(followUp.pipeline, followUp.events)
        XCTAssertEqual(followUp.all.filter { $0.type == "speech_start" }.count, 2, "two segments")
        XCTAssertEqual(intents(followUp.all).map(\.name), ["scroll"])
        XCTAssertEqual(followUp.pipeline[25], false, "at 2.5 s, between the segments, the command is awaited")
    }

    /// A follow-up command far under its wake phrase (a mouse click, a television across the room) is not the
    /// talker's: rejected as too quiet, and the window stays open for the talker's own.
    func testAFollowUpFarUnderTheWakePhraseIsNotTheTalkers() throws {
        let words = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        let split = 24_320   // 1.52 s, in the 80 ms pause after "jarvis"
        let wake = Array(words[..<split]), pause = Array(words[..<12_800]), command = Array(words[split...])
        let quiet = command.map { Int16((Double($0) * 0.02).rounded()) }   // 34 dB under the wake phrase
        let quietOnly = wake + pause + quiet + pause
        let events = try run(samples: quietOnly)
        XCTAssertEqual(intents(events).map(\.name), [])
        // The quiet command, and the fixture's noise after it (at 26 dB, 54 dB under the wake phrase, heard as "back").
        XCTAssertEqual(rejectionReasons(events), ["too-quiet", "too-quiet", "no-command"])
        var anyLevel = PipelineSettings()
        anyLevel.followUpQuietDrop = nil
        XCTAssertEqual(intents(try run(samples: quietOnly, settings: anyLevel)).map(\.name), ["scroll"],
                       "without the check, the quiet sound is taken for the command")
        let thenSaid = try run(samples: wake + pause + quiet + pause + command)
        XCTAssertEqual(intents(thenSaid).map(\.name), ["scroll"], "the talker's command in the same window")
        XCTAssertEqual(rejectionReasons(thenSaid), ["too-quiet"])
    }

    func testResetGivesTheEventsOfAFreshPipeline() throws {
        let settings = PipelineSettings()
        var events: [Event] = []
        let pipeline = try Pipeline(settings: settings) { events.append($0) }
        for name in ["session.wav", "scroll_down.wav"] {
            if name != "session.wav" { pipeline.reset(); events.removeAll() }
            let samples = try readAll(fixtures.appendingPathComponent(name).path)
            try pipeline.process(samples)
            try pipeline.finish()
        }
        let fresh = try run("scroll_down.wav", settings: settings, chunk: 1_000_000)
        XCTAssertEqual(events.map(\.type), fresh.map(\.type))
        XCTAssertEqual(events.map(\.t), fresh.map(\.t))
        XCTAssertEqual(intents(events), intents(fresh))
        XCTAssertEqual(pipeline.stats.intents, 1)
    }
}

extension PipelineTests {
    /// In steady noise the wake phrase's verification margin shrinks; the segment's SNR and steady floor
    /// lower the thresholds and the second pass hears the noise reduced. Without both, the same audio is lost.
    func testCommandInSteadyWhiteNoise() throws {
        let heard = try run("noisy_page_down.wav")
        XCTAssertEqual(count(heard, "wake"), 1)
        XCTAssertEqual(intents(heard).map(\.name), ["scroll"])
        XCTAssertEqual(intents(heard).first?.slots["direction"], .string("down"))
        var quietRules = PipelineSettings()
        quietRules.recognizer.noisyWakeThreshold = quietRules.recognizer.wakeThreshold
        quietRules.recognizer.noisyCommandThreshold = quietRules.recognizer.commandThreshold
        quietRules.recognizer.denoiseSteadyNoise = false
        XCTAssertEqual(intents(try run("noisy_page_down.wav", settings: quietRules)), [])
    }

    /// espeak-ng's audio holds digital silence: the second pass hears it over a faint noise floor.
    func testCommandsInDigitalSilenceAreHeardOverANoiseFloor() throws {
        let click = try run("espeak_click.flac")
        XCTAssertEqual(count(click, "wake"), 1)
        XCTAssertEqual(intents(click).map(\.name), ["click"])
        XCTAssertEqual(intents(click).first?.slots["button"], .string("left"))
        let scroll = intents(try run("espeak_scroll_down.flac"))
        XCTAssertEqual(scroll.map(\.name), ["scroll"])
        XCTAssertEqual(scroll.first?.slots["direction"], .string("down"))
        var noFloor = PipelineSettings()
        noFloor.recognizer.noiseFloorDB = nil
        let without = try run("espeak_click.flac", settings: noFloor)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(count(without, "rejected"), 1)
        // Audio with a noise floor of its own is decoded as it came: the same events either way.
        let strip = { (events: [Event]) in events.map { $0.json.serialized() }.filter { !$0.contains("\"end\"") } }
        XCTAssertEqual(strip(try run("scroll_down.wav", settings: noFloor)), strip(try run("scroll_down.wav")))
        let path = { (name: String) in fixtures.appendingPathComponent(name).path }
        XCTAssertFalse(NoiseFloor.holdsDigitalSilence(try readAll(path("scroll_down.wav"))[...]))
        XCTAssertTrue(NoiseFloor.holdsDigitalSilence(try readAll(path("espeak_click.flac"))[...]))
    }

    /// espeak-ng's British voice says "search" without the r-coloured vowel of the model's American dictionary
    /// ("S ER CH"): the accent's pronunciation (`GrammarDictionary.accentPronunciations`) hears the search, the
    /// dictionary's alone does not (the language model hears "the bulldogs").
    func testANonRhoticSearchLeadIsHeard() throws {
        let heard = intents(try run("espeak_gb_search_dogs.flac"))
        XCTAssertEqual(heard.map(\.name), ["search"])
        XCTAssertEqual(heard.first?.slots["query"], .string("dogs"))
        var american = PipelineSettings()
        american.recognizer.accentVariants = false
        let without = try run("espeak_gb_search_dogs.flac", settings: american)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(rejectionReasons(without).count, 1, "heard, woken, and not taken for a command")
    }

    /// espeak-ng's British "go back", its "a" open (B AA K): in a clean segment the second pass and the command's
    /// verification know "back" said so too (`RecognizerSettings.openVowelWords`); without that the grammar hears
    /// "google" and phones, unsure, and the command is rejected.
    func testTheOpenVowelOfABritishBackIsHeardInCleanSpeech() throws {
        let heard = intents(try run("espeak_gb_go_back.flac"))
        XCTAssertEqual(heard.map(\.name), ["navigate"])
        XCTAssertEqual(heard.first?.slots["target"], .string("back"))
        var american = PipelineSettings()
        american.recognizer.openVowelWords = []
        let without = try run("espeak_gb_go_back.flac", settings: american)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(count(without, "wake"), 1, "woken, and the command not taken")
    }

    /// What a TTS program (`espeak-ng`, a test dependency) says, its peak at −3 dBFS, between a second of
    /// faint noise (−60 dBFS) on each side, as the dev set makes its clips. `arguments` gets the WAV file's path.
    func synthesized(_ program: String, _ arguments: (String) -> [String]) throws -> [Int16] {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-tts-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        let tts = Process()
        tts.executableURL = URL(fileURLWithPath: "/usr/bin/\(program)")
        tts.arguments = arguments(wav.path)
        try tts.run()
        tts.waitUntilExit()
        XCTAssertEqual(tts.terminationStatus, 0, "\(program) failed (scripts/install-deps.sh --test installs it)")
        let speech = try readAll(wav.path)
        let gain = 32768 * pow(10, -3.0 / 20) / Double(max(1, speech.map { abs(Int($0)) }.max() ?? 1))
        let pad = NoiseFloor(levelDB: -60).apply([Int16](repeating: 0, count: 16_000)[...], start: 0)
        return pad + speech.map { Int16((Double($0) * gain).rounded()) } + pad
    }

    /// "find" alone before a query (`PipelineSettings.languageModelOnlyLeads`): the grammar does not hold it and
    /// hears another command at low confidence, the general language model hears "find cheap hotels in paris",
    /// and its query is taken. Without the setting the speech is rejected.
    func testASearchWhoseLeadOnlyTheLanguageModelHears() throws {
        let speech = try synthesized("flite") {
            ["-voice", "slt", "-t", "hey jarvis, find cheap hotels in paris", "-o", $0]
        }
        let events = try run(samples: speech)
        XCTAssertEqual(intents(events).map(\.name), ["search"])
        XCTAssertEqual(intents(events).map { $0.slots["query"] }, [.string("cheap hotels in paris")])
        var without = PipelineSettings()
        without.languageModelOnlyLeads = false
        let rejected = try run(samples: speech, settings: without)
        XCTAssertEqual(intents(rejected).count, 0)
        XCTAssertEqual(rejectionReasons(rejected).count, 1)
    }

    /// Phrasings only the language model's words are parsed with (stop 70): flite slt's "click on it" comes out of
    /// the grammar as an unsure "click twice" (rejected) and out of the language model as "is click on it", a
    /// left click (`wholeCommandSecondOpinion`; without it, nothing). "find me" is a search's lead: the query
    /// does not start with "me".
    func testAClickAndASearchLeadOnlyTheLanguageModelHears() throws {
        let click = try synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, click on it", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: click)).map(\.slots), [["button": .string("left"), "count": .int(1)]])
        var without = PipelineSettings()
        without.wholeCommandSecondOpinion = false
        XCTAssertEqual(intents(try run(samples: click, settings: without)).count, 0)
        let search = try synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, find me a recipe for pancakes", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: search)).map { $0.slots["query"] }, [.string("a recipe for pancakes")])
    }

    /// The grammar stretched "search the internet for" over flite slt's "search pizza"; the general language model
    /// heard "this search pizza recipes", without "internet": its lead and query stand
    /// (`PipelineSettings.languageModelOnlyLeadOverUnheardGrammarLead`).
    func testASearchLeadTheGrammarHeardLongerThanItWasSaid() throws {
        let speech = try synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, search pizza recipes", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map { $0.slots["query"] }, [.string("pizza recipes")])
        var without = PipelineSettings()
        without.languageModelOnlyLeadOverUnheardGrammarLead = false
        XCTAssertEqual(intents(try run(samples: speech, settings: without)).count, 0)
    }

    /// A request needs the language model to hear one of its words; flite awb's "could you open youtube" comes out
    /// of it as "so could you open you tube", which counts (`UtteranceRecognizer.heardInParts`). Without the model
    /// expecting a command (which may hear "youtube" whole), the general model's words alone decide.
    func testARequestWhoseSiteTheLanguageModelHeardInParts() throws {
        let speech = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, could you open youtube", "-o", $0] }
        var settings = PipelineSettings()
        settings.commandModelAcousticLoss = nil
        XCTAssertEqual(intents(try run(samples: speech, settings: settings)).map { $0.slots["url"] },
                       [.string("https://www.youtube.com/")])
    }

    /// Two commands one word apart that fit about as well (`PipelineSettings.twinArbitrationMargin`): espeak-ng's
    /// "next tab" fits "new tab" 0.09 nats per frame better than "next tab"; the language model expecting a command
    /// hears "next tab", and decides.
    func testTheCommandModelDecidesBetweenTwinsThatFitAboutAsWell() throws {
        let speech = try synthesized("espeak-ng") { ["-v", "en-us", "-w", $0, "hey jarvis, next tab"] }
        XCTAssertEqual(intents(try run(samples: speech)).map { $0.slots["target"] }, [.string("next_tab")])
        var without = PipelineSettings()
        without.twinArbitrationMargin = nil
        XCTAssertEqual(intents(try run(samples: speech, settings: without)).map { $0.slots["target"] }, [.string("new_tab")])
    }

    /// "go up" is not in the grammar, which hears flite kal16's as "go back" (0.99); as a language-model-only command
    /// it is a twin of "go back" (`RecognizerSettings.languageModelOnlyTwins`) and fits the audio 0.74 nats per
    /// frame better. Without the setting the page went back.
    func testGoUpIsATwinOfTheGoBackTheGrammarHeard() throws {
        let speech = try synthesized("flite") { ["-voice", "kal16", "-t", "hey jarvis, go up", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map(\.slots), [["direction": .string("up"), "amount": .int(1)]])
        var without = PipelineSettings()
        without.recognizer.languageModelOnlyTwins = false
        XCTAssertEqual(intents(try run(samples: speech, settings: without)).map { $0.slots["target"] }, [.string("back")])
    }

    /// A twin taken over words the grammar was unsure of (stop 86): flite slt's "go up" was the grammar's "go back"
    /// at 0.26 and its twin "go up" fitted better; the twin is no surer than those words, so it was rejected as
    /// unsure. Now the language model checks it, as any unsure command in clean audio: it heard "up".
    func testAnUnsureTakenTwinIsCheckedByTheLanguageModel() throws {
        try assertGoUp(voice: "slt", rejectedAs: "low-confidence") { $0.unsureTakenTwinChecked = false }
    }

    /// The grammar heard a search the language model did not (stop 86): flite awb's "go up" was "google" and
    /// phones to the grammar, "go up" to the model, and was rejected as no search. A whole command the model
    /// heard is taken there, as where the grammar heard no command.
    func testAWholeCommandTheModelHeardWhereTheGrammarHeardAnUnconfirmedSearch() throws {
        try assertGoUp(voice: "awb", rejectedAs: "not-a-command") { $0.wholeCommandOverUnheardTrigger = false }
    }

    /// Asserts that flite `voice`'s "hey jarvis, go up" scrolls up one step, and is rejected for `reason` with
    /// the setting `turnOff` changes.
    func assertGoUp(voice: String, rejectedAs reason: String, without turnOff: (inout PipelineSettings) -> Void,
                    file: StaticString = #filePath, line: UInt = #line) throws {
        try assertFlite(voice: voice, saying: "go up", gives: ["direction": .string("up"), "amount": .int(1)],
                        rejectedAs: reason, without: turnOff, file: file, line: line)
    }

    /// Asserts that flite `voice`'s "hey jarvis, " + `command` gives one intent with `slots`, and is rejected for
    /// `reason` with the setting `turnOff` changes.
    func assertFlite(voice: String, saying command: String, gives slots: [String: SlotValue], rejectedAs reason: String,
                     without turnOff: (inout PipelineSettings) -> Void,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let speech = try synthesized("flite") { ["-voice", voice, "-t", "hey jarvis, \(command)", "-o", $0] }
        let taken = try run(samples: speech)
        XCTAssertEqual(intents(taken).map(\.slots), [slots], file: file, line: line)
        XCTAssertEqual(rejectionReasons(taken), [], file: file, line: line)
        var without = PipelineSettings()
        turnOff(&without)
        let rejected = try run(samples: speech, settings: without)
        XCTAssertEqual(intents(rejected), [], file: file, line: line)
        XCTAssertEqual(rejectionReasons(rejected), [reason], file: file, line: line)
    }

    /// A search's query is heard with the word pairs of search queries mixed into the general language model
    /// (`RecognizerSettings.queryModelWeight`): flite kal16's "stock prices" was "spock prices" (the general model
    /// scores the two within 0.8 log10 of each other).
    func testASearchsQueryIsHeardWithTheWordPairsOfQueries() throws {
        let speech = try synthesized("flite") { ["-voice", "kal16", "-t", "hey jarvis, search for stock prices", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map { $0.slots["query"] }, [.string("stock prices")])
        var without = PipelineSettings()
        without.recognizer.queryModelWeight = nil
        XCTAssertEqual(intents(try run(samples: speech, settings: without)).map { $0.slots["query"] },
                       [.string("spock prices")])
    }

    /// A language-model-only twin within the arbitration margin: flite kal16's "go down a page" fits the grammar's
    /// "go back a page" about as well (the twin 0.05 nats per frame better); the model expecting a command hears
    /// "down" and not "back", and decides. Without the arbitration the page went back.
    func testTheCommandModelDecidesForATwinTheGrammarDoesNotHold() throws {
        let speech = try synthesized("flite") { ["-voice", "kal16", "-t", "hey jarvis, go down a page", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map(\.slots),
                       [["direction": .string("down"), "amount": .int(1), "unit": .string("page")]])
        var without = PipelineSettings()
        without.twinArbitrationMargin = nil
        XCTAssertEqual(intents(try run(samples: speech, settings: without)).map { $0.slots["target"] }, [.string("back")])
    }

    /// The page's ends (stop 70): flite slt's "scroll to the top" was "scroll to the down", one step the wrong way.
    func testScrollToTheTop() throws {
        let speech = try synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, scroll to the top", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map(\.slots), [["direction": .string("up"), "amount": .int(20)]])
    }

    /// "Go to the top" is a command only the language model's words are parsed with (stop 87: in the grammar flite
    /// awb's "open youtube" under babble became "go to the bottom please"). Flite slt's is "go to github" and a
    /// phone to the grammar, which the model did not hear ("this go to the top"): the model's whole command is
    /// taken where the check rejects the grammar's (`wholeCommandOverUnheardCommand`).
    func testGoToTheTopIsTakenFromTheModelWhereItDidNotHearTheGrammarsCommand() throws {
        try assertFlite(voice: "slt", saying: "go to the top", gives: ["direction": .string("up"), "amount": .int(20)],
                        rejectedAs: "not-heard-as-command") { $0.wholeCommandOverUnheardCommand = false }
    }

    /// A page at a time (stop 87): flite kal16's "scroll up one page" was "scroll up one" with speech after it.
    func testScrollUpOnePageIsAPage() throws {
        let speech = try synthesized("flite") { ["-voice", "kal16", "-t", "hey jarvis, scroll up one page", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map(\.slots),
                       [["direction": .string("up"), "amount": .int(1), "unit": .string("page")]])
    }

    /// Words the grammar once lacked (stop 68): it fitted flite slt's "by three" to "nine" and "single" to
    /// "double". Now the amount and the count are the spoken ones.
    func testScrollByANumberAndASingleClick() throws {
        let scroll = try run(samples: synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, scroll down by three", "-o", $0] })
        XCTAssertEqual(intents(scroll).map(\.slots), [["direction": .string("down"), "amount": .int(3)]])
        let click = try run(samples: synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, single click", "-o", $0] })
        XCTAssertEqual(intents(click).map(\.slots), [["button": .string("left"), "count": .int(1)]])
    }

    /// A site whose name the dictionary lacks ("netflix") is heard once the config says how to say it (`words`,
    /// `RecognizerSettings.extraPronunciations`); without it the recogniser cannot be made and says which word.
    /// The phones check-config suggests (`PhoneSuggestion`, espeak-ng's) serve as they are ("tiktok").
    func testAWordTheDictionaryLacksIsHeardWithItsPronunciation() throws {
        var config = JarvisConfig()
        config.sites["netflix"] = "https://www.netflix.com/"
        config.pronunciations = ["netflix": ["N EH T F L IH K S"]]
        var settings = PipelineSettings()
        settings.recognizer.extraPronunciations = config.pronunciations
        let speech = try synthesized("flite") { ["-voice", "slt", "-t", "hey jarvis, open netflix", "-o", $0] }
        var events: [Event] = []
        let pipeline = try Pipeline(settings: settings, commands: config.commandSet()) { events.append($0) }
        try feed(speech, to: pipeline)
        XCTAssertEqual(intents(events).map { $0.slots["url"] }, [.string("https://www.netflix.com/")])
        settings.recognizer.extraPronunciations = [:]
        XCTAssertThrowsError(try Pipeline(settings: settings, commands: config.commandSet()) { _ in }) { error in
            XCTAssertTrue("\(error)".contains("no pronunciation for: netflix"), "\(error)")
        }
        // The phones check-config suggests for a word (espeak-ng's) are enough: "tiktok" said by flite's awb.
        let suggested = try XCTUnwrap(PhoneSuggestion.suggest(for: "tiktok"))
        config.sites["tiktok"] = "https://www.tiktok.com/"
        settings.recognizer.extraPronunciations = ["netflix": ["N EH T F L IH K S"], "tiktok": [suggested]]
        let tiktok = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, open tiktok", "-o", $0] }
        events = []
        let heard = try Pipeline(settings: settings, commands: config.commandSet()) { events.append($0) }
        try feed(tiktok, to: heard)
        XCTAssertEqual(intents(events).map { $0.slots["url"] }, [.string("https://www.tiktok.com/")])
    }

    /// Under white noise espeak-ng's "next tab" is heard as "new tab": its "kst" is a broadband hiss the grammar
    /// search takes for silence. Aligned over the same span, its twin "next tab" (one word away) fits better by
    /// more than `RecognizerSettings.twinMargin`, and is taken; without the twin check "new tab" stands.
    func testACommandsTwinThatFitsBetterIsTaken() throws {
        let speech = try synthesized("espeak-ng") { ["-v", "en-us", "-w", $0, "hey jarvis, next tab"] }
        var without = PipelineSettings()
        without.recognizer.twinMargin = nil
        for levelDB in [-36.0, -33.0] {
            let noisy = NoiseFloor(levelDB: levelDB).apply(speech[...], start: 0)
            XCTAssertEqual(intents(try run(samples: noisy)).map { $0.slots["target"] }, [.string("next_tab")],
                           "\(levelDB) dB")
            XCTAssertEqual(intents(try run(samples: noisy, settings: without)).map { $0.slots["target"] },
                           [.string("new_tab")], "\(levelDB) dB")
        }
    }

    /// "Can you …" and "could you …" before a command ask for it, and flite's voices are heard doing so. Such a
    /// command sounds like a sentence, so the language model must have heard one of its words other than the
    /// request's and the other carrier words (`PipelineSettings.requestOpeners`, `carrierWords`): the grammar
    /// hears "good morning how are you" as "could you open up youtube", sure of it, and, with no price on a
    /// request's opening word (`RecognizerSettings.requestCost`), "thank you very much" as "can you reload",
    /// where the language model heard "you".
    func testARequestIsACommandThatTheLanguageModelMustHear() throws {
        let flite = { (voice: String, text: String) in
            try self.synthesized("flite") { ["-voice", voice, "-t", text, "-o", $0] }
        }
        let scroll = intents(try run(samples: try flite("slt", "hey jarvis, can you scroll down")))
        XCTAssertEqual(scroll.map(\.name), ["scroll"])
        XCTAssertEqual(scroll.first?.slots["direction"], .string("down"))
        let greeting = try flite("awb", "hey jarvis, good morning how are you")
        XCTAssertEqual(intents(try run(samples: greeting)), [])
        var sure = PipelineSettings()
        sure.requestOpeners = []
        XCTAssertEqual(intents(try run(samples: greeting, settings: sure)).map(\.name), ["navigate"])
        let thanks = try synthesized("espeak-ng") { ["-v", "en-us", "-w", $0, "hey jarvis, thank you very much"] }
        XCTAssertEqual(intents(try run(samples: thanks)), [])
        var carriers = PipelineSettings()
        carriers.carrierWords.subtract(["can", "could", "you"])
        XCTAssertEqual(intents(try run(samples: thanks, settings: carriers)), [], "the opener's price alone")
        carriers.recognizer.requestCost = 0
        XCTAssertEqual(intents(try run(samples: thanks, settings: carriers)).map(\.name), ["navigate"])
    }

    /// An unsure command with a closed slot ("scroll left a little") is taken only when the language model heard
    /// one of the slot's words (`PipelineSettings.languageModelCheckWantsSlotWords`): in flite awb's "the scroll
    /// is on the table" the grammar hears that command, unsure of it, and the language model hears "scroll" but
    /// no direction. Without the setting "scroll" passes the check and the page scrolls left; a real "scroll
    /// left a little" still does.
    func testAnUnsureCommandsSlotWordMustBeHeard() throws {
        let sentence = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, the scroll is on the table", "-o", $0] }
        let events = try run(samples: sentence)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events), [])
        XCTAssertEqual(count(events, "rejected"), 1)
        var without = PipelineSettings()
        without.languageModelCheckWantsSlotWords = false
        let scrolled = intents(try run(samples: sentence, settings: without))
        XCTAssertEqual(scrolled.map(\.name), ["scroll"])
        XCTAssertEqual(scrolled.first?.slots["direction"], .string("left"))
        let command = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, scroll left a little", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: command)).first?.slots["direction"], .string("left"))
    }

    /// The second pass's searches are rebuilt with the open-vowel words for a clean segment and without them for a
    /// noisy one (`UtteranceRecognizer.holdSecondPass`): a British "go back", then a command under a fan's noise,
    /// each heard as on its own, with the same transcript.
    func testTheOpenVowelWordsComeAndGoWithTheRoom() throws {
        let british = try readAll(fixtures.appendingPathComponent("espeak_gb_go_back.flac").path)
        let noisy = try readAll(fixtures.appendingPathComponent("noisy_page_down.wav").path)
        func texts(_ events: [Event]) -> [String] {
            events.compactMap { if case .transcript(let text, _, _, _, _) = $0.kind { return text } else { return nil } }
        }
        let alone = try run("espeak_gb_go_back.flac") + run("noisy_page_down.wav")
        let events = try run(samples: british + noisy)
        XCTAssertEqual(intents(events), intents(alone))
        XCTAssertEqual(intents(events).map(\.name), ["navigate", "scroll"])
        XCTAssertEqual(texts(events), texts(alone))
    }

    func testAccentPronunciationsFollowTheDictionarysOwn() throws {
        let words = try GrammarDictionary(vocabulary: ["search", "for", "dogs"], from: ModelPaths.debianDefault.dictionary)
        let entries = words.entries.filter { !GrammarGenerator.isPhoneWord($0.word) }.map { "\($0.word) \($0.phones)" }
        XCTAssertEqual(entries, ["dogs D AA G Z", "dogs(2) D AO G Z", "for F AO R", "for(2) F ER", "for(3) F R ER",
                                 "for(4) F AO", "search S ER CH", "search(2) S AH CH"])
        let plain = try GrammarDictionary(vocabulary: ["search"], from: ModelPaths.debianDefault.dictionary, accentVariants: false)
        XCTAssertEqual(plain.entries.filter { !GrammarGenerator.isPhoneWord($0.word) }.map(\.phones), ["S ER CH"])
        // A dictionary with another pronunciation to start from (another phone set, another accent) gets none.
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-dict-\(UUID()).dict")
        defer { try? FileManager.default.removeItem(at: other) }
        try "search s er1 ch\n".write(to: other, atomically: true, encoding: .utf8)
        XCTAssertEqual(try GrammarDictionary(vocabulary: ["search"], from: other.path).entries.filter { !GrammarGenerator.isPhoneWord($0.word) }.count, 1)
    }

    /// A ground loop's hum (50 Hz and its 2nd, 3rd and 5th harmonics), there 2 s before the speech: the VAD's band
    /// hardly hears it, so the segment counts as clean, while the recogniser hears its 150 and 250 Hz lines. Notched
    /// out (`HumRemover`), espeak-ng's "hey jarvis, click" is heard as without it.
    func testMainsHumIsNotchedOut() throws {
        let speech = try readAll(fixtures.appendingPathComponent("espeak_click.flac").path)
        let lead = 32_000
        let hum = HumRemoverTests.hum(50, peak: 1000, count: lead + speech.count)
        let humming = hum.indices.map { i -> Int16 in
            let s = i >= lead ? Double(speech[i - lead]) : 0
            return Int16(max(-32768, min(32767, (hum[i] + s).rounded())))
        }
        let notched = try run(samples: humming)
        XCTAssertEqual(intents(notched).map(\.name), ["click"])
        var without = PipelineSettings()
        without.hum = nil
        XCTAssertEqual(intents(try run(samples: humming, settings: without)), [])
    }

    /// espeak-ng's British voice starts speaking right after a near-silent frame: the live decoder (the wake
    /// proposer) needs the noise floor too, or it takes "hey jarvis" for silence and nothing is decoded at all.
    func testTheLiveDecoderHearsTheNoiseFloorToo() throws {
        let events = try run("espeak_gb_scroll_left.flac")
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
        var rawLive = PipelineSettings()
        rawLive.recognizer.floorLiveAudio = false
        // A live decoder that waits for the voice (`liveHoldForVoice`) starts on more of the speech, and then
        // hears this one without the floor too: the test pins a live decoder that starts 0.5 s in.
        rawLive.liveHoldForVoice = nil
        let without = try run("espeak_gb_scroll_left.flac", settings: rawLive)
        XCTAssertEqual(count(without, "wake"), 0)
        XCTAssertEqual(intents(without), [])
        // The proposal does not depend on how the stream was cut into chunks.
        XCTAssertEqual(intents(try run("espeak_gb_scroll_left.flac", chunk: 480)).map(\.name), ["scroll"])
    }

    /// espeak-ng's formants sit higher than those of the acoustic model's speakers: every decoder's front end
    /// reads frequencies warped down (`frequencyWarp`). Without the warp its "go home" is "google" and a phone,
    /// the language model hears "go go", and the command is rejected (only the language model expecting a
    /// command, `commandModelAcousticLoss`, hears "go home" there).
    func testFrequencyWarpHearsEspeakGoHome() throws {
        let warped = try run("espeak_go_home.flac")
        XCTAssertEqual(count(warped, "wake"), 1)
        XCTAssertEqual(intents(warped).map(\.name), ["navigate"])
        XCTAssertEqual(intents(warped).first?.slots["target"], .string("home"))
        var unwarpedGeneralOnly = unwarped
        unwarpedGeneralOnly.commandModelAcousticLoss = nil
        let without = try run("espeak_go_home.flac", settings: unwarpedGeneralOnly)
        XCTAssertEqual(count(without, "wake"), 1)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(count(without, "rejected"), 1)
        // sphinxbase keeps the warp in process-wide variables: a decoder made without a warp in between must
        // not leave the next warped one unwarped.
        _ = try PocketSphinxDecoder(model: .debianDefault, extraArguments: [("-cmn", "batch")])
        XCTAssertEqual(intents(try run("espeak_go_home.flac")).first?.slots["target"], .string("home"))
    }

    /// A high voice (espeak-ng's en-us+f3, F0 about 200 Hz) is decoded with the high-voice warp: "new tab".
    /// With one warp for every voice its name verifies under the threshold and nothing is heard. A low voice
    /// (flite slt's "scroll down", F0 about 170 Hz) keeps the standard recogniser.
    func testAHighVoiceIsDecodedWithTheHighVoiceWarp() throws {
        let events = try run("espeak_f3_new_tab.flac")
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).map(\.slots["target"]), [.string("new_tab")])
        var oneWarp = PipelineSettings()
        oneWarp.recognizer.highVoiceWarp = nil
        XCTAssertEqual(intents(try run("espeak_f3_new_tab.flac", settings: oneWarp)), [])

        let pipeline = try Pipeline(settings: PipelineSettings()) { _ in }
        let f3 = try readAll(fixtures.appendingPathComponent("espeak_f3_new_tab.flac").path)
        try pipeline.process(Array(f3[..<(f3.count * 2 / 3)]))
        XCTAssertTrue(pipeline.decodesAHighVoice)
        try pipeline.finish()
        pipeline.reset()
        XCTAssertFalse(pipeline.decodesAHighVoice)
        let slt = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        try pipeline.process(Array(slt[..<(slt.count * 2 / 3)]))
        XCTAssertFalse(pipeline.decodesAHighVoice)
    }

    /// While the talker's voice is unknown, the standard recogniser's live decoder waits: a high voice goes to
    /// the high-voice recogniser without live decoding lost, with the same events. Without the wait the
    /// standard live decoder had started on it (so the test can fail). A low voice's wake is still reported
    /// before the utterance ends (`testWakeIsReportedBeforeTheUtteranceEnds`), with the same events.
    func testTheLiveDecoderWaitsForTheVoice() throws {
        func run(_ fixture: String, hold: Double?) throws -> (events: [Event], lost: Int) {
            var settings = PipelineSettings()
            settings.liveHoldForVoice = hold
            var events: [Event] = []
            let pipeline = try Pipeline(settings: settings) { events.append($0) }
            try feed(try readAll(fixtures.appendingPathComponent(fixture).path), to: pipeline)
            return (events, pipeline.liveSamplesAbandoned)
        }
        let held = try run("espeak_f3_new_tab.flac", hold: 1.0)
        let eager = try run("espeak_f3_new_tab.flac", hold: nil)
        XCTAssertEqual(held.lost, 0)
        XCTAssertGreaterThan(eager.lost, 0)
        XCTAssertEqual(intents(held.events).map(\.slots["target"]), [.string("new_tab")])
        XCTAssertEqual(held.events.map(\.type), eager.events.map(\.type))
        let low = try run("scroll_down.wav", hold: 1.0), lowEager = try run("scroll_down.wav", hold: nil)
        XCTAssertEqual(low.events.map(\.type), lowEager.events.map(\.type))
        XCTAssertEqual(intents(low.events), intents(lowEager.events))
    }

    /// An unsure command in clean audio is taken when the language model heard one of its words on any of its
    /// best paths: espeak-ng's British "scroll left" is "probably it" on the best path and "lift" or "left"
    /// on others. Only the best path (and no model expecting a command): rejected as not heard. (The grammar is
    /// unsure of it when "left" must have an "l" of its own: `joinedConsonants` off.)
    func testTheLanguageModelCheckLooksAtItsNextBestPathsToo() throws {
        var settings = PipelineSettings()
        settings.recognizer.joinedConsonants = false
        settings.commandModelAcousticLoss = nil
        let heard = try run("espeak_gb_scroll_left.flac", settings: settings)
        XCTAssertEqual(intents(heard).map(\.slots["direction"]), [.string("left")])
        var bestOnly = settings
        bestOnly.languageModelCheckAlternatives = false
        let events = try run("espeak_gb_scroll_left.flac", settings: bestOnly)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events), [])
        XCTAssertEqual(rejectionReasons(events), ["not-heard-as-command"])
    }

    /// espeak-ng says "scroll left" with one "l": the grammar hears it with "left" joined to "scroll"
    /// (`RecognizerSettings.joinedConsonants`), sure enough that the language model need not confirm it. With
    /// two "l"s to fit, the grammar is unsure, and only the language model's next best paths, or the language
    /// model expecting a command (`commandModelAcousticLoss`), save it.
    func testAConsonantSharedByTwoWordsIsHeardOnce() throws {
        var bestOnly = PipelineSettings()
        bestOnly.languageModelCheckAlternatives = false
        bestOnly.commandModelAcousticLoss = nil
        let joined = try run("espeak_gb_scroll_left.flac", settings: bestOnly)
        XCTAssertEqual(intents(joined).map(\.slots["direction"]), [.string("left")])
        let confidence = joined.compactMap { if case .transcript(_, let c, _, _, _) = $0.kind { return c } else { return nil } }
        XCTAssertGreaterThan(try XCTUnwrap(confidence.first), 0.9, "0.79 with two \"l\"s")
        var separate = bestOnly
        separate.recognizer.joinedConsonants = false
        let events = try run("espeak_gb_scroll_left.flac", settings: separate)
        XCTAssertEqual(intents(events), [])
        XCTAssertEqual(rejectionReasons(events), ["not-heard-as-command"])
        var expectingCommands = separate
        expectingCommands.commandModelAcousticLoss = PipelineSettings().commandModelAcousticLoss
        XCTAssertEqual(intents(try run("espeak_gb_scroll_left.flac", settings: expectingCommands)).map(\.slots["direction"]),
                       [.string("left")])
    }
}

extension PipelineTests {
    /// A search in steady noise: the language model hears the segment reduced, as the second pass does. From
    /// the raw audio it hears "the history of all".
    func testSearchQueryInSteadyNoiseIsHeardReduced() throws {
        assertSearch(try run("noisy_search_rome.wav"), query: "the history of rome")
        var raw = PipelineSettings()
        raw.recognizer.denoiseFreeText = false
        XCTAssertNotEqual(try query(of: "noisy_search_rome.wav", settings: raw), .string("the history of rome"))
    }
}

extension PipelineTests {
    /// The language model's second opinion: a search in its words, starting within the first two words.
    func testFreeTextCommandInTheLanguageModelsWords() throws {
        let pipeline = try Pipeline(settings: PipelineSettings()) { _ in }
        func query(_ text: String) -> String? {
            pipeline.freeTextCommand(in: CommandSet.normalizeWords(text)).flatMap {
                $0.name == "search" ? $0.slots["query"]?.description : "not a search: \($0.name)"
            }
        }
        XCTAssertEqual(query("those search for football scores"), "football scores")
        XCTAssertEqual(query("look up tomato soup"), "tomato soup")
        XCTAssertEqual(query("please search the web for used cars"), "used cars")
        // The lead the patterns take when they parse the words whole: "google for", not "google" + "for …".
        XCTAssertEqual(query("google for hiking boots"), "hiking boots")
        XCTAssertEqual(query("search the internet for weather in london"), "weather in london")
        XCTAssertNil(query("search for"), "no query")
        XCTAssertNil(query("i really want to search for dogs"), "the command starts too late: a sentence")
        XCTAssertNil(query("scroll down the page"), "no free text")
    }

    /// Where the grammar and the language model disagree on where a search's lead ends.
    func testQueryIsMendedWhereTheLeadEndsLaterThanTheGrammarHeard() {
        let set = CommandSet.builtin()
        func mend(_ query: String, _ lead: String) -> String {
            let m = Pipeline.mendedQuery(query, lead: CommandSet.normalizeWords(lead), intent: "search", slot: "query",
                                         commands: set)
            return (m.lead + ["|", m.query]).joined(separator: " ")
        }
        XCTAssertEqual(mend("for hiking boots", "search google for"), "search google for | hiking boots",
                       "the lead's last word, heard again")
        XCTAssertEqual(mend("for hiking boots", "google"), "google for | hiking boots", "a longer lead")
        XCTAssertEqual(mend("for hiking boots", "please google"), "please google for | hiking boots")
        XCTAssertEqual(mend("pizza recipes", "search for"), "search for | pizza recipes", "nothing to mend")
        XCTAssertEqual(mend("for", "search for"), "search for | for", "a query is never emptied")
        XCTAssertEqual(mend("up the road", "look up"), "look up | the road")
        XCTAssertEqual(mend("four square", "search for"), "search for | four square", "only the same word")
    }

    /// An article before a plural is not the query's (`PipelineSettings.articleBeforePluralDropped`): the model
    /// expecting "search for" heard its end as "a".
    func testAnArticleBeforeAPluralIsDroppedFromAQuery() {
        func dropped(_ query: String) -> String {
            Pipeline.articleBeforePluralDropped(CommandSet.normalizeWords(query)).joined(separator: " ")
        }
        XCTAssertEqual(dropped("a winter jackets"), "winter jackets")
        XCTAssertEqual(dropped("an apple pies"), "apple pies")
        XCTAssertEqual(dropped("a cat videos near me"), "cat videos near me", "the noun phrase ends before \"near\"")
        XCTAssertEqual(dropped("a recipe for pancakes"), "a recipe for pancakes", "the phrase's head is \"recipe\"")
        XCTAssertEqual(dropped("a few good movies"), "a few good movies", "a quantity")
        XCTAssertEqual(dropped("a bus schedule"), "a bus schedule")
        XCTAssertEqual(dropped("a city bus"), "a city bus", "\"bus\" is singular")
        XCTAssertEqual(dropped("a news channel"), "a news channel")
        XCTAssertEqual(dropped("a tv series"), "a tv series")
        XCTAssertEqual(dropped("a glass"), "a glass")
        XCTAssertEqual(dropped("a cat's toys"), "a cat's toys", "the article is the owner's")
        XCTAssertEqual(dropped("the winter jackets"), "the winter jackets", "only \"a\" and \"an\"")
        XCTAssertEqual(dropped("a"), "a", "a query is never emptied")
        let set = CommandSet.builtin()
        let mended = Pipeline.mendedQuery("a cat videos", lead: ["search", "for"], intent: "search", slot: "query",
                                          commands: set, dropArticleBeforePlural: true)
        XCTAssertEqual(mended.query, "cat videos")
        XCTAssertEqual(Pipeline.mendedQuery("a cat videos", lead: ["search", "for"], intent: "search", slot: "query",
                                            commands: set).query, "a cat videos", "off by default")
    }

    /// A file 30 dB quieter is heard as at full level (`RecognizerSettings.noiseFloorPeakDB`): flite slt's "search
    /// for football scores" peaking at -33 dBFS, with digital silence around it. With the floor at -70 dBFS
    /// whatever the level, the language model heard "the conference".
    func testAQuietFileIsHeardAsAtFullLevel() throws {
        let speech = try synthesized("flite") {
            ["-voice", "slt", "-t", "hey jarvis, search for football scores", "-o", $0]
        }
        let voice = speech.dropFirst(16_000).dropLast(16_000)   // without the helper's pads of faint noise
        let gain = 32768 * pow(10, -33.0 / 20) / Double(voice.map { abs(Int($0)) }.max() ?? 1)
        let silence = [Int16](repeating: 0, count: 16_000)
        let quiet = silence + voice.map { Int16((Double($0) * gain).rounded()) } + silence
        XCTAssertEqual(intents(try run(samples: quiet)).map { $0.slots["query"] }, [.string("football scores")])
        var absolute = PipelineSettings()
        absolute.recognizer.noiseFloorPeakDB = nil
        XCTAssertNotEqual(intents(try run(samples: quiet, settings: absolute)).map { $0.slots["query"] },
                          [.string("football scores")])
    }

    /// flite awb's "search for cat videos": the model expecting the lead heard "search for a cat videos".
    func testASearchForCatVideosHasNoArticle() throws {
        let speech = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, search for cat videos", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map { $0.slots["query"] }, [.string("cat videos")])
        var without = PipelineSettings()
        without.articleBeforePluralDropped = false
        XCTAssertEqual(intents(try run(samples: speech, settings: without)).map { $0.slots["query"] },
                       [.string("a cat videos")])
    }

    /// ...and a whole command without free text in its words, after at most two other words
    /// (`PipelineSettings.wholeCommandLeadWords`).
    func testWholeCommandInTheLanguageModelsWords() throws {
        let pipeline = try Pipeline(settings: PipelineSettings()) { _ in }
        func heard(_ text: String) -> Intent? { pipeline.wholeCommand(in: CommandSet.normalizeWords(text)) }
        XCTAssertEqual(heard("those refresh the page")?.slots["target"], .string("reload"))
        XCTAssertEqual(heard("jarvis refresh the page")?.slots["target"], .string("reload"), "the wake phrase's end")
        XCTAssertEqual(heard("scroll down")?.slots["direction"], .string("down"))
        XCTAssertEqual(heard("or just scroll down")?.slots["direction"], .string("down"), "two words first")
        XCTAssertNil(heard("and so those refresh the page"), "the command starts too late")
        var one = PipelineSettings()
        one.wholeCommandLeadWords = 1
        let strict = try Pipeline(settings: one) { _ in }
        XCTAssertNil(strict.wholeCommand(in: ["or", "just", "scroll", "down"]), "one word first at most")
        XCTAssertNotNil(strict.wholeCommand(in: ["just", "scroll", "down"]))
        XCTAssertNil(heard("refresh the page now"), "more words after it: a sentence")
        XCTAssertNil(heard("search for dogs"), "a search is the free-text opinion's")
        XCTAssertNil(heard("what is the weather like today"))
        XCTAssertNil(heard(""))
    }
}

extension PipelineTests {
    /// "tell me a joke": the grammar fits "show me gmail" and a phone, which the commands-only grammar covers
    /// as "show me github"; the language model heard "just tell me a joke", with none of the command's own
    /// words, so it is rejected. Without the check (and without the covering, whose command is checked the
    /// same way) the same audio opens gmail.
    func testUnsureCommandTheLanguageModelDidNotHearIsRejected() throws {
        var unchecked = PipelineSettings()
        unchecked.languageModelCheckBelow = 0
        unchecked.recognizer.rescoreTrailingPhones = false
        try assertCheckRejects("tell_me_a_joke.flac", reason: "not-heard-as-command", unchecked: unchecked,
                               otherwise: "navigate")
    }
}

extension PipelineTests {
    /// The general language model hears "starch were trained times to boston": no "for", so not a search.
    /// Expecting a command's lead (`CommandLeadModel`) it hears "search for train times to boston", and the
    /// search is taken with its query. Without the lead model the same audio is rejected.
    func testSearchHeardByTheLanguageModelExpectingALead() throws {
        assertSearch(try run("search_train_times.flac"), query: "train times to boston")
        var withoutLeads = PipelineSettings()
        withoutLeads.recognizer.commandLeadWeight = 0
        let plain = try run("search_train_times.flac", settings: withoutLeads)
        XCTAssertEqual(intents(plain), [])
        XCTAssertEqual(count(plain, "rejected"), 1)
    }
}

extension PipelineTests {
    /// The language model's decoder gets its most probable words, and the commands' words whatever their rank.
    func testLanguageModelVocabularyKeepsTheMostProbableWords() throws {
        let path = ModelPaths.debianDefault.languageModel
        let all = try PocketSphinxDecoder.languageModelVocabulary(path: path)
        let top = try PocketSphinxDecoder.languageModelVocabulary(path: path, limit: 1000, keeping: ["youtube", "notaword"])
        XCTAssertGreaterThan(all.count, 50_000)
        XCTAssertTrue(top.isSubset(of: all))
        for common in ["the", "for", "time", "people"] { XCTAssertTrue(top.contains(common), common) }
        XCTAssertTrue(all.contains("youtube") == top.contains("youtube"), "kept whatever its rank")
        XCTAssertFalse(top.contains("notaword"), "only words the model knows")
        XCTAssertEqual(top.subtracting(["youtube"]).count, 1000)
        // Read paged (the default) or whole, the same words.
        XCTAssertEqual(try PocketSphinxDecoder.languageModelVocabulary(path: path, limit: 20_000, loading: .whole),
                       try PocketSphinxDecoder.languageModelVocabulary(path: path, limit: 20_000))
    }

    /// The dictionary's lines for a vocabulary, as a plain split of the file finds them: alternatives ("for(2)")
    /// under their word, a last line without a newline, tabs and carriage returns, words that share a prefix.
    func testGrammarDictionaryFindsEveryLineOfItsWords() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-dict-\(UUID()).dict")
        defer { try? FileManager.default.removeItem(at: file) }
        let text = "a AH\na(2) EY\nab AE B\nabc\tAE B K\r\n\nfor F AO R\nfor(2) F ER \nforward F AO R W ER D\nzed Z EH D"
        try text.write(to: file, atomically: true, encoding: .utf8)
        func entries(_ vocabulary: Set<String>) throws -> [String] {
            try GrammarDictionary(vocabulary: vocabulary, from: file.path, accentVariants: false).entries
                .filter { !GrammarGenerator.isPhoneWord($0.word) }.map { "\($0.word)|\($0.phones)" }
        }
        XCTAssertEqual(try entries(["a", "abc", "for", "zed"]),
                       ["a|AH", "a(2)|EY", "abc|AE B K", "for|F AO R", "for(2)|F ER", "zed|Z EH D"])
        XCTAssertEqual(try entries(["ab", "forward", "nothere"]), ["ab|AE B", "forward|F AO R W ER D"])
        XCTAssertEqual(try GrammarDictionary(vocabulary: ["ab", "nothere"], from: file.path).missing, ["nothere"])
        // More pronunciations (the config's `words`): after the dictionary's own, numbered after them (one it
        // has already is not added again); a word the dictionary lacks is no longer missing; words outside the
        // vocabulary are left out.
        let extra = try GrammarDictionary(vocabulary: ["a", "nothere", "zed"], from: file.path, accentVariants: false,
                                          extra: ["a": ["EY", "AA"], "nothere": ["N AA T", "N OW T"], "ab": ["EY B"]])
        XCTAssertEqual(extra.entries.filter { !GrammarGenerator.isPhoneWord($0.word) }.map { "\($0.word)|\($0.phones)" },
                       ["a|AH", "a(2)|EY", "zed|Z EH D", "a(3)|AA", "nothere|N AA T", "nothere(2)|N OW T"])
        XCTAssertEqual(extra.missing, [])
        // The model's own dictionary: every line of a sample of its words, in its order.
        let model = try String(contentsOfFile: ModelPaths.debianDefault.dictionary, encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).map(String.init) }
        let base = { (word: String) in String(word.prefix { $0 != "(" }) }
        let sample = Set(model.enumerated().filter { $0.offset % 97 == 0 }.map { base($0.element[0]) })
        let expected = model.filter { sample.contains(base($0[0])) }.map { "\($0[0])|\($0[1])" }
        let found = try GrammarDictionary(vocabulary: sample, from: ModelPaths.debianDefault.dictionary, accentVariants: false)
        XCTAssertGreaterThan(expected.count, 1000)
        XCTAssertEqual(found.entries.filter { !GrammarGenerator.isPhoneWord($0.word) }.map { "\($0.word)|\($0.phones)" }, expected)
    }
}

extension PipelineTests {
    /// A long-running pipeline whose cached language model was removed meanwhile (another jarvis's cache
    /// eviction, or the user) makes it again at the next load instead of failing the search.
    func testTheNextSearchMakesARemovedCachedModelAgain() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-cache-\(UUID().uuidString)")
        let previous = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        setenv("XDG_CACHE_HOME", cache.path, 1)
        defer {
            if let previous { setenv("XDG_CACHE_HOME", previous, 1) } else { unsetenv("XDG_CACHE_HOME") }
            try? FileManager.default.removeItem(at: cache)
        }
        let search = try readAll(fixtures.appendingPathComponent("search_pizza.wav").path)
        let bed = Array(search[0..<AudioFormat.samples(0.8)])
        var events: [Event] = []
        var settings = PipelineSettings()
        settings.releaseLanguageModelAfter = 2
        let pipeline = try Pipeline(settings: settings) { events.append($0) }
        try pipeline.process(search)
        let folder = cache.appendingPathComponent("jarvis").path
        // The pruned general model and the word pairs of search queries (`QueryBigramModel`), one each.
        let models = { try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".lm.bin") }.sorted() }
        XCTAssertEqual(try models().map { $0.prefix(while: { $0 != "-" }) }, ["lm", "queries"])
        for _ in 0..<4 { try pipeline.process(bed) }
        XCTAssertFalse(pipeline.languageModelLoaded)
        try FileManager.default.removeItem(atPath: folder)
        try pipeline.process(search)
        try pipeline.finish()
        // Both searches decoded (the second, after the fixture's noise bed, hears "pc recipes" either way).
        XCTAssertEqual(intents(events).map(\.name), ["search", "search"])
        XCTAssertEqual(intents(events).first?.slots["query"], .string("pizza recipes"))
        XCTAssertEqual(count(events, "error"), 0)
        XCTAssertEqual(try models().map { $0.prefix(while: { $0 != "-" }) }, ["lm", "queries"])
    }
}

extension PipelineTests {
    /// With the VAD off the stream is one endless segment; the idle language model is released all the same.
    func testLanguageModelIsReleasedInEndlessSpeechToo() throws {
        let search = try readAll(fixtures.appendingPathComponent("search_pizza.wav").path)
        let bed = Array(search[0..<AudioFormat.samples(0.8)])
        var events: [Event] = []
        var settings = PipelineSettings()
        settings.vadEnabled = false
        settings.maxUtterance = 6  // the restart at 6 s decodes the search
        settings.releaseLanguageModelAfter = 2
        let pipeline = try Pipeline(settings: settings) { events.append($0) }
        try pipeline.process(search)
        for _ in 0..<3 { try pipeline.process(bed) }
        XCTAssertEqual(count(events, "restart"), 1)
        XCTAssertTrue(pipeline.languageModelLoaded, "the search needed it")
        for _ in 0..<4 { try pipeline.process(bed) }
        XCTAssertFalse(pipeline.languageModelLoaded, "more than 2 s of audio without using it")
        try pipeline.finish()
        XCTAssertEqual(intents(events).map(\.name), ["search"])
    }
}

extension PipelineTests {
    /// Another, quieter voice (15 dB under the talker, like a TV) right after a search is not part of its
    /// query: the language model hears "used cars and then we went home", and its last five words lie about
    /// 16 dB under the wake phrase.
    func testQuieterSpeechAfterAQueryIsNotPartOfIt() throws {
        assertSearch(try run("search_cars_then_tv.flac"), query: "used cars")
        var keepAll = PipelineSettings()
        keepAll.recognizer.quietTrailingWordDrop = nil
        let kept = try query(of: "search_cars_then_tv.flac", settings: keepAll)
        guard case .string(let words)? = kept else { return XCTFail("no search without the level check: \(String(describing: kept))") }
        XCTAssertTrue(words.hasPrefix("used cars "), words)
    }
}

extension PipelineTests {
    /// Under steady noise a wake phrase just under the threshold wakes when a sure command follows it, and
    /// only then: without the allowance, or with a command confidence no command reaches, nothing happens.
    /// The fixture also depends on the noise estimate's window (`DenoiserSettings.minimumSpanFrames`): with
    /// the 0.72 s of before 2026-11-24 it does not wake at all. Its margins were measured without the frequency
    /// warp, with which it does not wake and nothing happens.
    func testSureCommandCarriesAMarginalWakePhraseInSteadyNoise() throws {
        let events = try run("noisy_page_up.wav", settings: unwarped)
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
        XCTAssertEqual(intents(events).first?.slots["direction"], .string("up"))
        XCTAssertEqual(intents(events).first?.slots["unit"], .string("page"))
        let wakes = events.compactMap { if case .wake(_, let score) = $0.kind { return score } else { return nil } }
        XCTAssertEqual(wakes.count, 1)
        XCTAssertLessThan(wakes.first ?? 1, 0.5, "the wake phrase alone is under the threshold")

        var noAllowance = unwarped
        noAllowance.recognizer.tentativeWakeSlack = nil
        let without = try run("noisy_page_up.wav", settings: noAllowance)
        XCTAssertEqual(count(without, "wake"), 0)
        XCTAssertEqual(intents(without), [])

        var unreachable = unwarped
        unreachable.recognizer.tentativeWakeCommandConfidence = 1.01
        let unsure = try run("noisy_page_up.wav", settings: unreachable)
        XCTAssertEqual(count(unsure, "wake"), 0)
        XCTAssertEqual(intents(unsure), [])
    }

    /// Under steady noise a segment whose live wake candidates all fall under the gate is still decoded again,
    /// and its wake then needs both halves of the name to verify well (`weakCandidateHalvesMargin`). The
    /// fixture under white noise at -26 dBFS (about 13 dB under the speech): the live decoder's candidates
    /// score 0.03 on the raw audio; the name's halves verify at about 2.0 and 1.3 on the denoised audio. (Measured
    /// without the frequency warp, with which it still wakes but no search comes out.)
    func testWeakWakeCandidateInSteadyNoiseIsDecodedAgain() throws {
        let events = try run("search_pizza.wav", noiseDB: -26, settings: unwarped)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).map(\.name), ["search"])

        var gated = unwarped
        gated.recognizer.weakCandidateHalvesMargin = nil
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -26, settings: gated), "wake"), 0)
        var floor = unwarped
        floor.recognizer.weakCandidateScore = 0.05
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -26, settings: floor), "wake"), 0)
        var strict = unwarped
        strict.recognizer.weakCandidateHalvesMargin = 1.5
        strict.recognizer.strongFirstHalfMargin = nil
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -26, settings: strict), "wake"), 0,
                       "one half of the name verifies under 1.5")
    }

    /// Under steady noise the end of the name drowns first, so a strong first half carries a weak second one
    /// (`strongFirstHalfMargin`, `weakSecondHalfMargin`), never the other way round. The fixture's halves verify
    /// at about 2.0 and 1.3 under white noise at -26 dBFS: with the weak candidates' bar at 1.5 the second half
    /// fails it, and the wake holds only when the first half may carry it.
    func testAStrongFirstHalfOfTheNameCarriesAWeakSecondOneInSteadyNoise() throws {
        var strict = unwarped
        strict.recognizer.weakCandidateHalvesMargin = 1.5
        let carried = try run("search_pizza.wav", noiseDB: -26, settings: strict)
        XCTAssertEqual(count(carried, "wake"), 1)
        XCTAssertEqual(intents(carried).map(\.name), ["search"])
        var weaker = strict
        weaker.recognizer.weakSecondHalfMargin = 1.6
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -26, settings: weaker), "wake"), 0)
        var stronger = strict
        stronger.recognizer.strongFirstHalfMargin = 2.5
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -26, settings: stronger), "wake"), 0)

        // The rule itself, on margins (nats per frame).
        let settings = RecognizerSettings()
        func holds(_ first: Double, _ second: Double, _ margin: Double = 0.4, _ s: RecognizerSettings? = nil) -> Bool {
            UtteranceRecognizer.halvesHold(first: first, second: second, margin: margin, settings: s ?? settings)
        }
        XCTAssertTrue(holds(0.5, 0.5))
        XCTAssertTrue(holds(2.0, -0.3))
        XCTAssertTrue(holds(1.2, -0.9))
        XCTAssertFalse(holds(0.9, -0.3), "a first half under strongFirstHalfMargin carries nothing")
        XCTAssertFalse(holds(2.0, -1.1), "a second half under weakSecondHalfMargin fails")
        XCTAssertFalse(holds(0.3, 2.0), "the first half's margin never moves")
        XCTAssertFalse(holds(2.0, -.infinity))
        var off = settings
        off.strongFirstHalfMargin = nil
        XCTAssertFalse(holds(2.0, -0.3, 0.4, off))
    }

    /// Under steady noise the live decoder hears the raw audio, and may propose no wake candidate at all (the
    /// segment is then not decoded again). Such a segment is heard once more by it with the noise reduced
    /// (`liveSearchOnReducedNoise`); what it finds there still faces the gate on the raw audio. The fixture
    /// under white noise at -26 dBFS: the live decoder finds nothing; with the noise reduced it hears "hey
    /// jarvis", whose raw margin passes the weak candidates' floor.
    func testASegmentWithoutLiveCandidatesInSteadyNoiseIsHeardAgainWithTheNoiseReduced() throws {
        let events = try run("close_current_tab.flac", noiseDB: -26)
        XCTAssertEqual(count(events, "wake"), 1)
        XCTAssertEqual(intents(events).first?.slots["target"], .string("close_tab"))

        var off = PipelineSettings()
        off.recognizer.liveSearchOnReducedNoise = false
        XCTAssertEqual(count(try run("close_current_tab.flac", noiseDB: -26, settings: off), "wake"), 0)
        var gated = PipelineSettings()
        gated.recognizer.weakCandidateScore = 5
        XCTAssertEqual(count(try run("close_current_tab.flac", noiseDB: -26, settings: gated), "wake"), 0,
                       "the candidate found with the noise reduced still faces the raw gate")
        // In a quiet room the live decoder's own candidates are all there is.
        XCTAssertEqual(count(try run("close_current_tab.flac", settings: off), "wake"), 1)
    }

    /// "hey jarvis, scroll down" with `seconds` of another fixture spliced in right after "down" (from 2.62 s),
    /// `gainDB` dB from its level: speech behind the talker, or the talker's own.
    func scrollDown(then fixture: String, _ seconds: ClosedRange<Double>, gainDB: Double) throws -> [Int16] {
        let command = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        let other = try readAll(fixtures.appendingPathComponent(fixture).path)
        let gain = pow(10, gainDB / 20)
        let spliced = other[AudioFormat.samples(seconds.lowerBound)..<AudioFormat.samples(seconds.upperBound)]
            .map { Int16(Double($0) * gain) }
        let cut = AudioFormat.samples(2.62)
        return Array(command[..<cut]) + spliced + Array(command[cut...])
    }

    /// The "seven" of `custom_volume.flac` (2.50–3.05 s) after "scroll down": a number behind the talker, or a
    /// plosive's release heard as one.
    func scrollDownThenSeven(gainDB: Double) throws -> [Int16] {
        try scrollDown(then: "custom_volume.flac", 2.50...3.05, gainDB: gainDB)
    }

    /// A command's last words 12 dB or more under the wake phrase are dropped when the command stands without
    /// them (`quietTrailingCommandWordDrop`): "scroll down" with a "seven" 18 dB under it scrolls by 1, and
    /// by 7 without the rule; a "seven" at the talker's level (4 dB under) stays.
    func testAQuietNumberAfterACommandIsNotTheTalkers() throws {
        let quiet = try scrollDownThenSeven(gainDB: -18)
        XCTAssertEqual(intents(try run(samples: quiet)).map(\.slots), [["direction": .string("down"), "amount": .int(1)]])
        var keep = PipelineSettings()
        keep.recognizer.quietTrailingCommandWordDrop = nil
        XCTAssertEqual(intents(try run(samples: quiet, settings: keep)).map(\.slots["amount"]), [.int(7)])
        let loud = try scrollDownThenSeven(gainDB: -4)
        XCTAssertEqual(intents(try run(samples: loud)).map(\.slots["amount"]), [.int(7)])
    }

    /// Under steady noise every wake needs both halves of the name over the phone loop (`nameHalvesMargin`);
    /// in a quiet room the test is not made. At -31 dBFS the live candidate passes the gate (no weak path)
    /// and the halves verify at about 2.7 and 1.5.
    func testNameHalvesAreVerifiedUnderSteadyNoiseOnly() throws {
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -31), "wake"), 1)
        var strict = PipelineSettings()
        strict.recognizer.nameHalvesMargin = 2.0
        strict.recognizer.strongFirstHalfMargin = nil
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -31, settings: strict), "wake"), 0)
        var off = strict
        off.recognizer.nameHalvesMargin = nil
        XCTAssertEqual(count(try run("search_pizza.wav", noiseDB: -31, settings: off), "wake"), 1)
        let quiet = try run("search_pizza.wav", settings: strict)
        XCTAssertEqual(count(quiet, "wake"), 1)
        XCTAssertEqual(intents(quiet).first?.slots["query"], .string("pizza recipes"))
    }

    /// Between `cleanSNR` and `noisySNR` the margin of the name's halves moves from the quiet one to the noisy
    /// one with the noise, as the thresholds do; a wake found by weak candidates only keeps its own margin.
    func testNameHalvesMarginFollowsTheNoise() throws {
        var s = RecognizerSettings()
        s.quietNameHalvesMargin = -2
        s.nameHalvesMargin = 0
        s.weakCandidateHalvesMargin = 0.4
        XCTAssertEqual(s.nameHalvesMargin(at: 0), -2)
        XCTAssertEqual(try XCTUnwrap(s.nameHalvesMargin(at: 0.25)), -1.5, accuracy: 1e-9)
        XCTAssertEqual(s.nameHalvesMargin(at: 1), 0)
        XCTAssertEqual(s.nameHalvesMargin(at: 0.25, weakOnly: true), 0.4)
        var fixed = s
        fixed.halvesMarginFollowsNoisiness = false
        XCTAssertEqual(fixed.nameHalvesMargin(at: 0.25), 0)
        var noQuiet = s
        noQuiet.quietNameHalvesMargin = nil
        XCTAssertEqual(noQuiet.nameHalvesMargin(at: 0.25), 0, "no quiet margin to start from: the noisy one")
        XCTAssertNil(noQuiet.nameHalvesMargin(at: 0))
        var noNoisy = s
        noNoisy.nameHalvesMargin = nil
        XCTAssertNil(noNoisy.nameHalvesMargin(at: 0.25))
        XCTAssertEqual(noNoisy.nameHalvesMargin(at: 0), -2)

        // A hiss at -39 dBFS under "search for pizza recipes" (SNR between `noisySNR` and `cleanSNR`), the name
        // verified by the second pass alone (no streaming wake): its halves (about 2.6 and 1.7) pass the margin
        // that lies between the quiet -2 and a strict noisy 2.0, and fail the noisy margin itself.
        var strict = PipelineSettings()
        strict.recognizer.nameHalvesMargin = 2.0
        strict.recognizer.strongFirstHalfMargin = nil
        strict.recognizer.streamingWake = false
        XCTAssertEqual(intents(try run("search_pizza.wav", noiseDB: -39, settings: strict)).map(\.name), ["search"])
        strict.recognizer.halvesMarginFollowsNoisiness = false
        XCTAssertEqual(intents(try run("search_pizza.wav", noiseDB: -39, settings: strict)), [])
    }

    /// Under a hiss the VAD cuts "hey jarvis" off from "scroll down" (the comma's pause): the command's segment,
    /// full of speech, has too few pauses to show the steady noise, and takes it from the wake phrase's
    /// segment, which ended just before (`SegmentSNR.carryFrames`). Before that it was decoded as if clean, with
    /// no noise reduction, and heard as "go home" (confidence 0.96).
    func testCommandCutOffFromItsWakePhraseInAHissKeepsTheNoiseEstimate() throws {
        let events = try run("scroll_down.wav", noiseDB: -30)
        XCTAssertEqual(count(events, "speech_start"), 2, "the VAD cuts the utterance at the comma")
        XCTAssertEqual(intents(events).map(\.name), ["scroll"])
        XCTAssertEqual(intents(events).first?.slots["direction"], .string("down"))
    }

    /// The live gate (like the thresholds) falls under steady noise only: a hiss at 15 dB, not babble at the
    /// same SNR, and not a clean room.
    func testLiveGateFallsUnderSteadyNoiseOnly() throws {
        let recognizer = try UtteranceRecognizer(commands: .builtin(), wakePhrase: "hey jarvis",
                                                 settings: RecognizerSettings())
        let settings = recognizer.settings
        XCTAssertLessThan(settings.noisyGateScore, settings.gateScore)
        XCTAssertEqual(recognizer.gateScore, settings.gateScore, "unknown noise counts as clean")
        recognizer.segmentNoise = .init(snrDB: 45, noiseDB: 20, floorSpreadDB: 1)
        XCTAssertEqual(recognizer.gateScore, settings.gateScore)
        recognizer.segmentNoise = .init(snrDB: 15, noiseDB: 50, floorSpreadDB: 1)
        XCTAssertEqual(recognizer.gateScore, settings.noisyGateScore)
        recognizer.segmentNoise = .init(snrDB: 15, noiseDB: 50, floorSpreadDB: 8)
        XCTAssertEqual(recognizer.gateScore, settings.gateScore, "babble: the floor is not steady")
        recognizer.segmentNoise = .init(snrDB: 25, noiseDB: 40, floorSpreadDB: 1)
        XCTAssertEqual(recognizer.gateScore, (settings.gateScore + settings.noisyGateScore) / 2, accuracy: 1e-9)
    }
}

extension PipelineTests {
    /// The grammar that rescores a command with the phones after it (`commandsGraph`), on real audio: over
    /// the fixture's "scroll down" it hears exactly that command.
    func testCommandsOnlyGrammarHearsTheCommandOfASpan() throws {
        let commands = CommandSet.builtin()
        // The grammar's dictionary: the commands' words and the phone words of its free-text loops.
        let decoder = try batchDecoder(knowing: commands.vocabulary)
        try decoder.addGraph(name: "commands", GrammarGenerator(commands: commands).commandsGraph())
        let hyp = try XCTUnwrap(try decoder.decodeUtterance(try scrollDownCommand(), search: "commands"))
        XCTAssertEqual(hyp.words.filter { !$0.isFiller }.map(\.word), ["scroll", "down"])
    }

    /// A batch-CMN decoder whose dictionary holds `vocabulary` (and the phone words).
    private func batchDecoder(knowing vocabulary: Set<String>) throws -> PocketSphinxDecoder {
        var model = ModelPaths.debianDefault
        model.dictionary = try GrammarDictionary(vocabulary: vocabulary, from: model.dictionary).writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: model.dictionary) }  // read by the decoder's init
        return try PocketSphinxDecoder(model: model, extraArguments: [("-cmn", "batch")])
    }

    /// "scroll down" of the fixture, with a little of the pause before it and the floor after (1.6–2.7 s).
    private func scrollDownCommand() throws -> ArraySlice<Int16> {
        let samples = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        return samples[(16_000 * 16 / 10)..<(16_000 * 27 / 10)]
    }
}

extension PipelineTests {
    /// The grammar decoder takes the language model's words at run time (`addWords`), so one acoustic model
    /// serves both: a word added after loading is heard by a search added afterwards, a word already known is
    /// not added twice, and a removed search can no longer be chosen.
    func testWordsAddedToTheDictionaryAreHeardAndRemovedSearchesAreGone() throws {
        let decoder = try batchDecoder(knowing: ["down", "up"])  // no "scroll"
        XCTAssertNil(decoder.pronunciation(of: "scroll"))
        let scroll = try GrammarDictionary(vocabulary: ["scroll", "down", "up"], from: ModelPaths.debianDefault.dictionary)
        XCTAssertEqual(try decoder.addWords(scroll.entries), scroll.entries.filter { $0.word.hasPrefix("scroll") }.count)
        XCTAssertEqual(try decoder.addWords(scroll.entries), 0, "every word is known now")
        XCTAssertNotNil(decoder.pronunciation(of: "scroll"))
        var graph = GrammarGraph()
        graph.start = graph.newState()
        let middle = graph.newState()
        graph.final = graph.newState()
        graph.add(graph.start, middle, "scroll")
        graph.add(middle, graph.final, "down", log(0.5))
        graph.add(middle, graph.final, "up", log(0.5))
        try decoder.addGraph(name: "scroll", graph)
        let hyp = try XCTUnwrap(try decoder.decodeUtterance(try scrollDownCommand(), search: "scroll"))
        XCTAssertEqual(hyp.words.filter { !$0.isFiller }.map(\.word), ["scroll", "down"])
        decoder.removeSearch("scroll")
        XCTAssertThrowsError(try decoder.useSearch("scroll"))
    }
}

extension PipelineTests {
    /// As audio comes in, the live decoder's best path moves the name's end by a frame or two; such a candidate
    /// is the one verified already ("asked jarvis": frames 89-140, then 89-134 and 89-139). The events stay the
    /// same, with a verification fewer. (The counts were measured with the standard recogniser; flite slt's
    /// voice in this sentence is at 181 Hz, which hands the segment to the high-voice one: kept off here.)
    func testALiveCandidateThatMovesItsEndByAFrameIsNotVerifiedAgain() throws {
        func verified(tolerance: Int) throws -> (events: [Event], verified: Int) {
            var settings = PipelineSettings()
            settings.recognizer.highVoiceWarp = nil
            settings.recognizer.candidateEndTolerance = tolerance
            var events: [Event] = []
            let pipeline = try Pipeline(settings: settings) { events.append($0) }
            try feed(try readAll(fixtures.appendingPathComponent("asked_jarvis.flac").path), to: pipeline)
            return (events, pipeline.liveCandidatesVerified)
        }
        let every = try verified(tolerance: 0)
        let deduplicated = try verified(tolerance: 3)
        XCTAssertEqual(every.verified, 3)
        XCTAssertEqual(deduplicated.verified, 2)
        XCTAssertEqual(deduplicated.events.map(\.type), every.events.map(\.type))
        XCTAssertEqual(deduplicated.events.map(\.t), every.events.map(\.t))
    }
}

extension PipelineTests {
    /// "hey jarvis, can you open a new tab": a request, so the general language model must hear one of its
    /// words; it hears "can you been in a cab". The model expecting a command (`CommandPhraseModel`) hears
    /// "can you open a new tab" on a path that sounds as good, and the command is taken. Without it, rejected.
    func testRequestHeardByTheLanguageModelExpectingACommand() throws {
        let events = try run("can_you_open_a_new_tab.flac")
        XCTAssertEqual(intents(events).map(\.name), ["navigate"])
        XCTAssertEqual(intents(events).first?.slots["target"], .string("new_tab"))
        var generalOnly = PipelineSettings()
        generalOnly.commandModelAcousticLoss = nil
        let without = try run("can_you_open_a_new_tab.flac", settings: generalOnly)
        XCTAssertEqual(intents(without), [])
        XCTAssertEqual(rejectionReasons(without), ["not-heard-as-command"])
        // The command model must hear it on a path about as good as the general model's: none is good enough
        // at a negative allowance.
        var strict = PipelineSettings()
        strict.commandModelAcousticLoss = -1
        XCTAssertEqual(rejectionReasons(try run("can_you_open_a_new_tab.flac", settings: strict)), ["not-heard-as-command"])
    }
}

extension PipelineTests {
    /// flite awb's "tell me a joke" and espeak-ng's "read my emails": the grammar is sure of "show me youtube" and
    /// of "reload", each followed by two phones of the rest of the sentence, as loud as the wake phrase. The
    /// language model heard none of either command's words, so both are rejected
    /// (`PipelineSettings.trailingSpeechCheckSeconds`). Without the check the same audio opens youtube and reloads.
    func testASureCommandWithALittleMoreSpeechAfterItNeedsTheLanguageModel() throws {
        var unchecked = PipelineSettings()
        unchecked.trailingSpeechCheckSeconds = nil
        let joke = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, tell me a joke", "-o", $0] }
        let emails = try synthesized("espeak-ng") { ["-v", "en-us", "-w", $0, "hey jarvis, read my emails"] }
        for speech in [joke, emails] {
            try assertCheckRejects(reason: "not-heard-as-command", unchecked: unchecked, otherwise: "navigate") {
                try run(samples: speech, settings: $0)
            }
        }
    }

    /// flite awb's "click" with mains hum coming on with the speech (`click_hum.flac`): the grammar hears "click"
    /// and two phones of the hum after it, 19 dB under the wake phrase. That is not the talker's speech, so the
    /// sure command is not checked (`PipelineSettings.quietTrailingSpeechDrop`); the language model, hearing
    /// the hum, does not hear "click", and with any sound after the command taken for the talker's it is rejected.
    func testAHumAfterASureCommandIsNotMoreSpeech() throws {
        XCTAssertEqual(intents(try run("click_hum.flac")).map(\.name), ["click"])
        var anyLevel = PipelineSettings()
        anyLevel.quietTrailingSpeechDrop = nil
        XCTAssertEqual(rejectionReasons(try run("click_hum.flac", settings: anyLevel)), ["not-heard-as-command"])
    }

    /// flite awb's "right click the mouse", heard whole and then three phones: the language model heard "sprite
    /// click the mouse", without the slot's "right" but with "click" and "mouse", which is enough after a sure
    /// command (`PipelineSettings.trailingSpeechCheckTakesAnyWord`). Asking for the slot's word, as for an unsure
    /// command, rejects it.
    func testASureCommandWithALittleMoreSpeechNeedsAnyOfItsWordsHeard() throws {
        let speech = try synthesized("flite") { ["-voice", "awb", "-t", "hey jarvis, right click the mouse", "-o", $0] }
        XCTAssertEqual(intents(try run(samples: speech)).map { $0.slots["button"] }, [.string("right")])
        var slotWord = PipelineSettings()
        slotWord.trailingSpeechCheckTakesAnyWord = false
        XCTAssertEqual(rejectionReasons(try run(samples: speech, settings: slotWord)), ["not-heard-as-command"])
    }
}
