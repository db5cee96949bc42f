import Foundation
import JarvisCore
import XCTest

/// `jarvis listen` and `jarvis devices` through real ALSA PCMs without a sound card: an asoundrc (via
/// ALSA_CONFIG_PATH) defines `file`-plugin PCMs whose `infile` is a raw fixture (S16_LE, 16 kHz, mono) and
/// whose slave is the `null` PCM. Such a PCM delivers audio as fast as it is read and keeps returning stale
/// data past the end of the file, so every run is bounded by --duration or a signal.
final class ListenCommandTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("audio-fixtures")

    var dir: URL!
    var environment: [String: String] = [:]
    /// Where the `jarvislate` PCM reads from; it does not exist until a test creates it.
    var lateInput: URL { dir.appendingPathComponent("late.raw") }
    var sessionRaw: URL { dir.appendingPathComponent("session.raw") }

    var binary: URL {
        var dir = Bundle(for: Self.self).bundleURL
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("jarvis").path), dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("jarvis")
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: binary.path),
                          "build the jarvis executable first (swift build)")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/share/alsa/alsa.conf"), "alsa-lib's configuration is not installed")
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-listen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // The fixture as raw S16_LE 16 kHz mono, decoded by jarvis's own file source (no sox needed).
        let samples = try readSamples(Self.fixtures.appendingPathComponent("session.wav").path)
        try samples.withUnsafeBytes { Data($0) }.write(to: sessionRaw)
        let asoundrc = """
        </usr/share/alsa/alsa.conf>
        pcm.jarvistest {
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "\(sessionRaw.path)"
            format "raw"
            hint { show on description "jarvis test input (session.wav)" }
        }
        pcm.jarvislate {
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "\(lateInput.path)"
            format "raw"
        }
        """
        let config = dir.appendingPathComponent("asound.conf")
        try asoundrc.write(to: config, atomically: true, encoding: .utf8)
        environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = config.path
        // No desktop, no user config; the history and the control socket go to the test's folder.
        environment["DISPLAY"] = ""
        environment["WAYLAND_DISPLAY"] = ""
        environment["XDG_CONFIG_HOME"] = dir.path
        environment["XDG_STATE_HOME"] = dir.path
        environment["XDG_RUNTIME_DIR"] = dir.path
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// A running `jarvis`, its stdout and stderr going to files that can be watched while it runs.
    final class Run {
        let process = Process()
        let out: URL, err: URL

        init(_ binary: URL, _ args: [String], env: [String: String], dir: URL) throws {
            let id = UUID().uuidString
            out = dir.appendingPathComponent("\(id).out")
            err = dir.appendingPathComponent("\(id).err")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = binary
            process.arguments = args
            process.environment = env
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var stdout: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
        var events: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func events(_ type: String) -> [[String: Any]] { events.filter { $0["type"] as? String == type } }

        /// Waits until `condition` holds (polling); false on timeout.
        func waitFor(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while Date() < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return condition()
        }

        /// Waits for the exit; on timeout kills the process and returns nil.
        func finish(timeout: TimeInterval) -> Int32? {
            if waitFor(timeout: timeout, { !process.isRunning }) {
                process.waitUntilExit()
                return process.terminationStatus
            }
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
    }

    /// Every sample of an audio file, as jarvis's file source decodes it (16 kHz mono).
    func readSamples(_ path: String) throws -> [Int16] {
        let source = try AudioFileSource(path: path)
        var samples: [Int16] = []
        while case let chunk = try source.read(maxSamples: 16000), !chunk.isEmpty { samples += chunk }
        return samples
    }

    func start(_ args: [String]) throws -> Run { try Run(binary, args, env: environment, dir: dir) }

    func run(_ args: [String], timeout: TimeInterval = 60) throws -> (Int32?, Run) {
        let r = try start(args)
        return (r.finish(timeout: timeout), r)
    }

    /// The fields of an intent event that must agree between listen and replay.
    func intentSummary(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["type"] as? String == "intent" }.map { e in
            var e = e
            e["source"] = nil
            return String(decoding: try! JSONSerialization.data(withJSONObject: e, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    func replayIntents(_ path: String) throws -> [String] {
        let (status, r) = try run(["replay", path, "--json"])
        XCTAssertEqual(status, 0, r.stderr)
        return intentSummary(r.events)
    }

    func testListenThroughTheFilePCMGivesTheSameIntentsAsReplay() throws {
        let (status, r) = try run(["listen", "--device", "jarvistest", "--json", "--duration", "11", "--overrun", "block"])
        XCTAssertEqual(status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        let events = r.events
        XCTAssertEqual(events.count, r.stdout.split(separator: "\n").count, "every line is one JSON object")
        XCTAssertEqual(events.first?["type"] as? String, "listening")
        XCTAssertEqual(events.first?["source"] as? String, "jarvistest")
        XCTAssertEqual(events.last?["type"] as? String, "end")
        let listened = intentSummary(events)
        XCTAssertEqual(listened.count, 3)
        XCTAssertEqual(listened, try replayIntents(Self.fixtures.appendingPathComponent("session.wav").path),
                       "same intents, same audio-clock times")
        let stats = events.last?["stats"] as? [String: Any]
        XCTAssertEqual(stats?["audio_seconds"] as? Double ?? 0, 11, accuracy: 0.001, "--duration counts captured audio")
        XCTAssertEqual(stats?["intents"] as? Int, 3)
        // The state stream: starts idle, reports only changes, reaches success for each command.
        let states = r.events("state").compactMap { $0["state"] as? String }
        XCTAssertEqual(states.first, "idle")
        XCTAssertEqual(states.filter { $0 == "success" }.count, 3)
        XCTAssertEqual(states.filter { $0 == "wake" }.count, 3)
        XCTAssertFalse(zip(states, states.dropFirst()).contains { $0 == $1 }, "\(states)")
        for e in events { XCTAssertNotNil(e["t"] as? Double, "every event has t") }
    }

    func testSaveAudioReplaysToTheSameIntents() throws {
        let wav = dir.appendingPathComponent("heard.wav").path
        let (status, r) = try run(["listen", "--device", "jarvistest", "--json", "--duration", "11", "--overrun", "block",
                                   "--save-audio", wav])
        XCTAssertEqual(status, 0, r.stderr)
        let source = try AudioFileSource(path: wav)
        XCTAssertEqual(source.fileSampleRate, 16000)
        XCTAssertEqual(source.fileChannels, 1)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int, 44 + 11 * 16000 * 2)
        XCTAssertEqual(try replayIntents(wav), intentSummary(r.events))
        XCTAssertEqual(intentSummary(r.events).count, 3)
    }

    func testSIGTERMStopsCleanlyWithinOneSecondAndKeepsTheSavedAudio() throws {
        let wav = dir.appendingPathComponent("cut.wav").path
        let r = try start(["listen", "--device", "jarvistest", "--json", "--pace", "1", "--save-audio", wav])
        XCTAssertTrue(r.waitFor(timeout: 20) { !r.events("intent").isEmpty }, "the first command is heard: \(r.stdout)\(r.stderr)")
        let sent = Date()
        kill(r.process.processIdentifier, SIGTERM)
        let status = r.finish(timeout: 5)
        let took = Date().timeIntervalSince(sent)
        XCTAssertEqual(status, 0, r.stderr)
        XCTAssertLessThan(took, 1.0, "stopped within 1 s")
        XCTAssertEqual(r.events.last?["type"] as? String, "end")
        let heard = (r.events.last?["stats"] as? [String: Any])?["audio_seconds"] as? Double ?? 0
        XCTAssertGreaterThan(heard, 2.5)
        XCTAssertLessThan(heard, 8)
        let n = try readSamples(wav).count
        XCTAssertEqual(Double(n) / 16000, heard, accuracy: 0.001, "the WAV is as long as the audio clock")
    }

    func testSIGINTStopsToo() throws {
        let r = try start(["listen", "--device", "jarvistest", "--pace", "1"])
        XCTAssertTrue(r.waitFor(timeout: 20) { r.stdout.contains("listening to jarvistest") })
        Thread.sleep(forTimeInterval: 0.3)
        kill(r.process.processIdentifier, SIGINT)
        XCTAssertEqual(r.finish(timeout: 5), 0)
        XCTAssertTrue(r.stdout.contains(" end: "), r.stdout)
        XCTAssertFalse(r.stdout.contains("state:"), "readable mode leaves the state to the meter")
        XCTAssertEqual(r.stderr, "", "no meter when stderr is not a terminal")
    }

    func testSIGHUPRecreatesThePipelineAndKeepsTheClock() throws {
        // `--overrun block`: a debug build on a busy machine may fall behind twice real time, and audio the ring
        // drops is a gap that may cut a command.
        let r = try start(["listen", "--device", "jarvistest", "--json", "--pace", "2", "--duration", "10.5",
                           "--overrun", "block"])
        // SIGHUP as the second command starts (4.09–5.58 s): the reload waits for the pause after it, so that
        // command is heard whole by the old pipeline.
        XCTAssertTrue(r.waitFor(timeout: 20) { r.events("speech_start").count >= 2 }, r.stdout)
        kill(r.process.processIdentifier, SIGHUP)
        XCTAssertEqual(r.finish(timeout: 20), 0, r.stderr)
        let reload = r.events("reload")
        XCTAssertEqual(reload.count, 1)
        let at = reload.first?["t"] as? Double ?? 0
        let second = r.events("intent").dropFirst().first?["t"] as? Double ?? .infinity
        XCTAssertGreaterThanOrEqual(at, second, r.stdout)
        // The commands after the reload are heard by the new pipeline, at their times in the stream.
        let later = r.events("intent").compactMap { $0["t"] as? Double }.filter { $0 > at }
        XCTAssertFalse(later.isEmpty, r.stdout)
        // The last command's segment ends 400 ms (the VAD hangover) after its speech, at 9.7 s.
        XCTAssertEqual(later.last ?? 0, 9.7, accuracy: 0.05)
        XCTAssertEqual((r.events.last?["stats"] as? [String: Any])?["intents"] as? Int, 3)
    }

    func testAMissingDeviceIsAClearErrorWithExit3() throws {
        let (status, r) = try run(["listen", "--device", "jarvis-no-such-pcm", "--json", "--duration", "1"])
        XCTAssertEqual(status, 3)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one sentence: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("'jarvis-no-such-pcm'"), r.stderr)
        XCTAssertTrue(r.stderr.contains("jarvis devices"), r.stderr)
        XCTAssertEqual(r.events.first?["type"] as? String, "error")
        XCTAssertEqual(r.events.first?["code"] as? String, "audio-device")
    }

    func testRetryReportsDeviceEventsAndStopsOnSIGTERM() throws {
        let r = try start(["listen", "--device", "jarvis-no-such-pcm", "--json", "--retry"])
        XCTAssertTrue(r.waitFor(timeout: 20) { r.events("device").count >= 2 }, r.stdout + r.stderr)
        let device = r.events("device")
        XCTAssertEqual(device.first?["status"] as? String, "unavailable")
        XCTAssertEqual(device.compactMap { $0["retry_in"] as? Double }.prefix(2), [0.5, 1], "exponential backoff")
        kill(r.process.processIdentifier, SIGTERM)
        XCTAssertEqual(r.finish(timeout: 2), 0)
        XCTAssertEqual(r.events.last?["type"] as? String, "end")
        XCTAssertEqual(r.events("state").last?["state"] as? String, "error")
        XCTAssertEqual(r.stderr, "")
    }

    func testCaptureResumesWhenTheDeviceComesBack() throws {
        let r = try start(["listen", "--device", "jarvislate", "--json", "--retry", "--duration", "11", "--overrun", "block"])
        XCTAssertTrue(r.waitFor(timeout: 20) { !r.events("device").isEmpty }, r.stdout + r.stderr)
        // "Plugged in": appears whole at once (copy, then rename).
        let partial = dir.appendingPathComponent("late.partial")
        try FileManager.default.copyItem(at: sessionRaw, to: partial)
        XCTAssertEqual(rename(partial.path, lateInput.path), 0)
        XCTAssertEqual(r.finish(timeout: 30), 0, r.stderr)
        let statuses = r.events("device").compactMap { $0["status"] as? String }
        XCTAssertEqual(statuses.last, "available")
        XCTAssertTrue(statuses.dropLast().allSatisfy { $0 == "unavailable" }, "\(statuses)")
        XCTAssertEqual(r.events("intent").count, 3)
    }

    func testAPipelineThatFallsBehindDropsTheOldestAudioVisibly() throws {
        // Unpaced file PCM, small ring, default drop policy: the capture outruns the pipeline.
        let wav = dir.appendingPathComponent("heard.wav").path
        let (status, r) = try run(["listen", "--device", "jarvistest", "--json", "--duration", "30", "--ring-seconds", "1",
                                   "--save-audio", wav])
        XCTAssertEqual(status, 0, r.stderr)
        let overruns = r.events("overrun")
        XCTAssertFalse(overruns.isEmpty)
        XCTAssertTrue(overruns.allSatisfy { $0["origin"] as? String == "ring" })
        // The dropped samples stay on the audio clock: the stream ends at 30 s, as captured.
        XCTAssertEqual(r.events.last?["t"] as? Double ?? 0, 30, accuracy: 0.001)
        XCTAssertEqual((r.events.last?["stats"] as? [String: Any])?["audio_seconds"] as? Double ?? 0, 30, accuracy: 0.001)
        // Each overrun is a gap of silence in the saved audio at its own time, and every other sample is the
        // captured one at its own time (the PCM reads the fixture from its start; past its end, stale data).
        let captured = try readSamples(Self.fixtures.appendingPathComponent("session.wav").path)
        let saved = try readSamples(wav)
        XCTAssertEqual(saved.count, 30 * 16000)
        var inGap = [Bool](repeating: false, count: saved.count)
        for overrun in overruns {
            let from = Int(((overrun["t"] as? Double ?? -1) * 16000).rounded())
            let count = overrun["dropped_samples"] as? Int ?? 0
            XCTAssertGreaterThan(count, 0)
            for i in max(0, from)..<min(saved.count, from + count) { inGap[i] = true }
        }
        let compared = min(captured.count, saved.count)
        let misplaced = (0..<compared).filter { saved[$0] != (inGap[$0] ? 0 : captured[$0]) }.count
        XCTAssertEqual(misplaced, 0, "samples off their capture time")
        XCTAssertTrue(inGap[..<compared].contains(true), "the fixture's own part had a gap")
    }

    func testDevicesListsCapturePCMs() throws {
        let (status, r) = try run(["devices", "--json"])
        XCTAssertEqual(status, 0, r.stderr)
        let names = r.events.compactMap { $0["name"] as? String }
        XCTAssertTrue(names.contains("jarvistest"), "\(names)")
        XCTAssertEqual(r.events.first { $0["name"] as? String == "jarvistest" }?["description"] as? String,
                       "jarvis test input (session.wav)")
        let (plainStatus, plain) = try run(["devices"])
        XCTAssertEqual(plainStatus, 0)
        XCTAssertTrue(plain.stdout.contains("jarvistest\n    jarvis test input (session.wav)\n"), plain.stdout)
    }

    /// A recogniser failure while listening (here a language model that sphinxbase cannot read, found at the first
    /// search) is written to the history, with its audio time, before jarvis exits with 4.
    func testARecogniserFailureIsInTheHistoryBeforeTheExit() throws {
        let samples = try readSamples(Self.fixtures.appendingPathComponent("search_pizza.wav").path)
        try samples.withUnsafeBytes { Data($0) }.write(to: lateInput)
        let arpa = "\\data\\\nngram 1=3\n\n\\1-grams:\n-1.0 <s> -0.3\n"
        let model = try modelCopy(replacing: ["en-us.lm.bin": Data(arpa.utf8)])
        let (status, r) = try run(["listen", "--device", "jarvislate", "--json", "--duration", "8", "--overrun", "block",
                                   "--model", model])
        XCTAssertEqual(status, 4, r.stderr)
        let history = try String(contentsOfFile: dir.appendingPathComponent("jarvis/history.jsonl").path, encoding: .utf8)
        let entries = history.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(entries.compactMap { $0["type"] as? String }, ["wake", "error"], history)
        XCTAssertEqual(entries.last?["code"] as? String, "recogniser")
        XCTAssertEqual(entries.last?["message"] as? String, r.events("error").first?["message"] as? String)
        XCTAssertGreaterThan(entries.last?["t"] as? Double ?? 0, entries.first?["t"] as? Double ?? .infinity)
    }

    /// PocketSphinx ending the process from inside a decode (variance normalisation, which its live decoding does
    /// not do) is in the history too, before the exit with 4.
    func testAFatalPocketSphinxErrorIsInTheHistoryToo() throws {
        let params = String(decoding: try debianModelFile("en-us/feat.params"), as: UTF8.self)
        let model = try modelCopy(replacing: ["en-us/feat.params": Data(params.replacingOccurrences(of: "-varnorm no", with: "-varnorm yes").utf8)])
        let (status, r) = try run(["listen", "--device", "jarvistest", "--json", "--duration", "5", "--overrun", "block",
                                   "--model", model])
        XCTAssertEqual(status, 4, r.stderr)
        let history = try String(contentsOfFile: dir.appendingPathComponent("jarvis/history.jsonl").path, encoding: .utf8)
        let last = history.split(separator: "\n").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(last?["type"] as? String, "error", history)
        XCTAssertTrue((last?["message"] as? String)?.contains("Variance normalization") == true, history)
        XCTAssertEqual(last?["message"] as? String, r.events("error").first?["message"] as? String)
    }

    func testListenUsageErrors() throws {
        XCTAssertEqual(try run(["listen", "--duration", "0"]).0, 2)
        XCTAssertEqual(try run(["listen", "--duration", "x"]).0, 2)
        XCTAssertEqual(try run(["listen", "--device", "jarvistest", "--save-audio", "/nonexistent/dir/x.wav", "--duration", "1"]).0, 2)
    }
}
