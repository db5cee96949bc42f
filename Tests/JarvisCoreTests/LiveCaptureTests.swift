import Foundation
import XCTest
@testable import JarvisCore

/// The capture ring (overrun policy), the live state machine, the level meter and the live event kinds.
final class SampleRingTests: XCTestCase {
    func samples(_ range: Range<Int>) -> [Int16] { range.map { Int16($0) } }

    func testReadsWhatWasWrittenInOrderAcrossTheWrap() {
        let ring = SampleRing(capacity: 10)
        ring.write(samples(0..<7))
        XCTAssertEqual(ring.read(maxSamples: 5, timeout: 0).samples, samples(0..<5))
        ring.write(samples(7..<14))   // wraps around the end of the storage
        XCTAssertEqual(ring.available, 9)
        XCTAssertEqual(ring.read(maxSamples: 100, timeout: 0).samples, samples(5..<14))
        XCTAssertEqual(ring.droppedSamples, 0)
    }

    func testFullRingDropsTheOldestAndCountsThem() {
        let ring = SampleRing(capacity: 10, policy: .dropOldest)
        ring.write(samples(0..<8))
        ring.write(samples(8..<13))       // 3 too many: 0, 1, 2 go
        XCTAssertEqual(ring.droppedSamples, 3)
        ring.write(samples(13..<40))      // more than the whole ring in one write: only the newest 10 stay
        XCTAssertEqual(ring.droppedSamples, 30)
        let chunk = ring.read(maxSamples: 100, timeout: 0)
        XCTAssertEqual(chunk.samples, samples(30..<40), "the newest audio is kept")
        XCTAssertEqual(chunk.dropped, 30, "reported to the reader once")
        ring.write(samples(40..<41))
        XCTAssertEqual(ring.read(maxSamples: 100, timeout: 0).dropped, 0)
    }

    func testBlockPolicyWaitsForTheReaderAndLosesNothing() {
        let ring = SampleRing(capacity: 16, policy: .block)
        let all = samples(0..<1000)
        let writer = Thread {
            all.withUnsafeBufferPointer { buf in
                var i = 0
                while i < buf.count {
                    let n = min(7, buf.count - i)
                    ring.write(UnsafeBufferPointer(rebasing: buf[i..<(i + n)]))
                    i += n
                }
            }
            ring.close()
        }
        writer.start()
        var got: [Int16] = []
        while true {
            let chunk = ring.read(maxSamples: 5, timeout: 1)
            got += chunk.samples
            XCTAssertEqual(chunk.dropped, 0)
            if chunk.ended { break }
        }
        XCTAssertEqual(got, all)
        XCTAssertEqual(ring.droppedSamples, 0)
    }

    func testNoticesArriveWhereTheyHappenedInTheStream() {
        let ring = SampleRing(capacity: 100)
        ring.write(samples(0..<10))
        ring.post(.alsaOverrun(reason: "overrun"))
        ring.write(samples(10..<20))
        let first = ring.read(maxSamples: 100, timeout: 0)
        XCTAssertEqual(first.samples, samples(0..<10), "samples stop at the notice")
        XCTAssertEqual(first.notices, [.alsaOverrun(reason: "overrun")])
        let second = ring.read(maxSamples: 100, timeout: 0)
        XCTAssertEqual(second.samples, samples(10..<20))
        XCTAssertEqual(second.notices, [])
    }

    func testCloseEndsTheReaderAfterTheRestIsRead() {
        let ring = SampleRing(capacity: 100)
        ring.write(samples(0..<10))
        ring.post(.deviceAvailable)
        ring.close()
        ring.write(samples(10..<20))   // ignored after close
        let chunk = ring.read(maxSamples: 100, timeout: 0)
        XCTAssertEqual(chunk.samples, samples(0..<10))
        XCTAssertEqual(chunk.notices, [.deviceAvailable])
        XCTAssertTrue(chunk.ended)
    }

    func testReadTimesOutWhenNothingArrives() {
        let ring = SampleRing(capacity: 10)
        let start = Date()
        let chunk = ring.read(maxSamples: 10, timeout: 0.1)
        XCTAssertEqual(chunk, SampleRing.Chunk())
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.09)
    }

    func testCloseWakesABlockedWriter() {
        let ring = SampleRing(capacity: 4, policy: .block)
        let done = expectation(description: "writer returned")
        Thread {
            ring.write([1, 2, 3, 4, 5, 6])   // blocks: no reader
            done.fulfill()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        ring.close()
        wait(for: [done], timeout: 2)
    }
}

final class LiveStateTests: XCTestCase {
    func states(_ kinds: [Event.Kind], settleAfterEach: Bool = true) -> [LiveState] {
        var tracker = StateTracker()
        var out: [LiveState] = []
        for k in kinds {
            if let s = tracker.observe(k) { out.append(s) }
            if settleAfterEach, let s = tracker.settle() { out.append(s) }
        }
        return out
    }

    let intent = Event.Kind.intent(Intent(name: "scroll", slots: ["direction": .string("down")], text: "scroll down"),
                                   confidence: 0.9)

    func testACommand() {
        let kinds: [Event.Kind] = [.speechStart, .speechEnd, .wake(phrase: "hey jarvis", score: 0.9),
                                   .transcript(text: "scroll down", confidence: 0.9, start: 0, end: 1, alternatives: []),
                                   intent, .action(name: "scroll", status: "dry-run", backend: "dry-run", detail: "")]
        // Decoding happens in the same chunk as speech_end, so settle() comes after wake/intent.
        var tracker = StateTracker()
        var out: [LiveState] = []
        for k in kinds { if let s = tracker.observe(k) { out.append(s) } }
        if let s = tracker.settle() { out.append(s) }
        XCTAssertEqual(out, [.listening, .wake, .processing, .success])
    }

    func testSpeechWithoutAWakeGoesBackToIdle() {
        XCTAssertEqual(states([.speechStart, .speechEnd]), [.listening, .idle])
    }

    func testOnlyChangesAreReported() {
        XCTAssertEqual(states([.speechStart, .speechStart, .partial(text: "x")]), [.listening])
        XCTAssertEqual(states([.speechEnd, .restart(reason: "max-utterance")]), [])
    }

    func testWakeWaitsForTheFollowUpThenRejectsToIdle() {
        let kinds: [Event.Kind] = [.speechStart, .wake(phrase: "hey jarvis", score: 1), .speechEnd,
                                   .speechStart, .speechEnd, .rejected(text: "", reason: "no-command")]
        XCTAssertEqual(states(kinds, settleAfterEach: true), [.listening, .wake, .idle])
    }

    func testErrorsAndDevices() {
        XCTAssertEqual(states([.error(code: "x", message: "y"), .speechStart]), [.error, .listening])
        XCTAssertEqual(states([.device(name: "d", status: "lost", message: "m", retryIn: nil),
                               .device(name: "d", status: "unavailable", message: "m", retryIn: 1),
                               .device(name: "d", status: "available", message: "", retryIn: nil)]),
                       [.error, .idle])
        XCTAssertEqual(states([.action(name: "click", status: "failed", backend: "xdotool", detail: "")]), [.error])
    }

    func testLevelMeter() {
        XCTAssertEqual(LevelMeter.dBFS([Int16](repeating: 0, count: 100)), LevelMeter.floorDB)
        XCTAssertEqual(LevelMeter.dBFS([Int16](repeating: 16384, count: 100)), -6.02, accuracy: 0.01)
        let full = LevelMeter.line(dB: 0, state: .wake)
        XCTAssertTrue(full.hasPrefix("[" + String(repeating: "#", count: LevelMeter.width) + "]"), full)
        XCTAssertTrue(full.hasSuffix("wake"))
        XCTAssertTrue(LevelMeter.line(dB: -90, state: .idle).hasPrefix("[" + String(repeating: ".", count: LevelMeter.width) + "]"))
    }

    func testLiveEventJSON() {
        XCTAssertEqual(Event(t: 1, .state("wake")).json.serialized(), #"{"type":"state","t":1,"state":"wake"}"#)
        XCTAssertEqual(Event(t: 0, .device(name: "hw:1", status: "unavailable", message: "m", retryIn: 0.5)).json.serialized(),
                       #"{"type":"device","t":0,"device":"hw:1","status":"unavailable","message":"m","retry_in":0.5}"#)
        XCTAssertEqual(Event(t: 2, .overrun(origin: "ring", droppedSamples: 320)).json.serialized(),
                       #"{"type":"overrun","t":2,"origin":"ring","dropped_samples":320}"#)
        XCTAssertEqual(Event(t: 2, .overrun(origin: "alsa", droppedSamples: nil)).json.serialized(),
                       #"{"type":"overrun","t":2,"origin":"alsa"}"#)
        XCTAssertEqual(Event(t: 3, .reload(reason: "SIGHUP")).json.serialized(),
                       #"{"type":"reload","t":3,"reason":"SIGHUP"}"#)
    }

    func testShiftedEventsMoveTranscriptTimesToo() {
        let e = Event(t: 1, .transcript(text: "a", confidence: 1, start: 0.5, end: 0.9, alternatives: [])).shifted(by: 10)
        XCTAssertEqual(e.t, 11)
        XCTAssertEqual(e.kind, .transcript(text: "a", confidence: 1, start: 10.5, end: 10.9, alternatives: []))
    }

    func testOpeningAMissingDeviceIsATypedError() {
        XCTAssertThrowsError(try ALSACapturePCM(name: "jarvis-no-such-pcm")) { error in
            guard let e = error as? ALSAError else { return XCTFail("\(error)") }
            XCTAssertLessThan(e.code, 0)
            XCTAssertFalse(e.reason.isEmpty)
            let sentence = CaptureThread.describe(e, device: "jarvis-no-such-pcm", orRetry: true)
            XCTAssertTrue(sentence.contains("'jarvis-no-such-pcm'") && sentence.contains("--retry"), sentence)
        }
    }
}

/// The capture thread's fault handling, with a scripted fake device instead of ALSA.
final class CaptureThreadTests: XCTestCase {
    /// A device that plays back a script of read outcomes; each `.frames(n)` fills with `value`.
    final class FakePCM: CapturePCM {
        var script: [(CaptureReadOutcome, Int16)]
        var recovered: [Int32] = []
        let periodFrames = 100
        init(_ script: [(CaptureReadOutcome, Int16)]) { self.script = script }

        func read(into buffer: UnsafeMutableBufferPointer<Int16>, timeoutMs: Int32) -> CaptureReadOutcome {
            guard !script.isEmpty else {
                Thread.sleep(forTimeInterval: Double(timeoutMs) / 1000)
                return .timeout   // a stalled device
            }
            let (outcome, value) = script.removeFirst()
            if case .frames(let n) = outcome {
                let n = min(n, buffer.count)
                for i in 0..<n { buffer[i] = value }
                return .frames(n)
            }
            return outcome
        }
        func recover(from code: Int32) throws(ALSAError) { recovered.append(code) }
        func close() {}
    }

    /// Hands out the scripted results of successive opens. `@unchecked Sendable`: guarded by `lock`.
    final class Opener: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<FakePCM, ALSAError>]
        private(set) var attempts = 0
        init(_ results: [Result<FakePCM, ALSAError>]) { self.results = results }
        func open() throws -> any CapturePCM {
            lock.lock()
            defer { lock.unlock() }
            attempts += 1
            if results.isEmpty { throw ALSAError(-ENOENT, "open") }
            return try results.removeFirst().get()
        }
        var count: Int { lock.lock(); defer { lock.unlock() }; return attempts }
    }

    func drain(_ ring: SampleRing, timeout: TimeInterval = 5) -> [SampleRing.Chunk] {
        var chunks: [SampleRing.Chunk] = []
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            let chunk = ring.read(maxSamples: 1000, timeout: 0.1)
            chunks.append(chunk)
            if chunk.ended { break }
        }
        return chunks
    }

    func testOverrunIsRecoveredAndALostDeviceIsReopenedWithBackoff() {
        let a = FakePCM([(.frames(100), 1), (.failed(-EPIPE), 0), (.frames(100), 2), (.failed(-ENODEV), 0)])
        let b = FakePCM([(.frames(100), 3), (.frames(100), 3), (.frames(100), 9)])
        let opener = Opener([.failure(ALSAError(-EBUSY, "open")), .success(a),
                             .failure(ALSAError(-ENODEV, "open")), .success(b)])
        let ring = SampleRing(capacity: 10_000)
        let capture = CaptureThread(deviceName: "fake", pcm: nil, ring: ring, limitSamples: 400,
                                    backoff: (0.01, 0.04), open: { try opener.open() })
        capture.start()
        let chunks = drain(ring)
        XCTAssertTrue(capture.join(timeout: 1))
        XCTAssertEqual(chunks.last?.ended, true, "the limit ends the capture")
        // Flatten into one ordered stream of sample runs ("100x1": 100 samples of 1) and notices; how the
        // reads happened to chunk the samples does not matter.
        var stream: [String] = []
        var run: (count: Int, value: Int16)?
        func flush() {
            if let r = run { stream.append("\(r.count)x\(r.value)") }
            run = nil
        }
        for c in chunks {
            for s in c.samples {
                if let r = run, r.value == s { run = (r.count + 1, s) } else { flush(); run = (1, s) }
            }
            if !c.notices.isEmpty { flush() }
            for n in c.notices {
                switch n {
                case .alsaOverrun(let reason): stream.append("overrun:\(reason)")
                case .deviceLost: stream.append("lost")
                case .deviceUnavailable(let message, let retryIn):
                    stream.append("unavailable:\(retryIn)")
                    XCTAssertTrue(message.contains("'fake'"), message)
                case .deviceAvailable: stream.append("available")
                }
            }
        }
        flush()
        XCTAssertEqual(stream, ["unavailable:0.01", "available", "100x1", "overrun:overrun", "100x2", "lost",
                                "unavailable:0.02", "available", "200x3"], "stops at the 400-sample limit")
        XCTAssertEqual(a.recovered, [-EPIPE])
        XCTAssertEqual(opener.count, 4)
    }

    func testAMissingDeviceIsRetriedWithoutABusyLoopAndStopsPromptly() {
        let opener = Opener([])
        let ring = SampleRing(capacity: 1000)
        let capture = CaptureThread(deviceName: "gone", pcm: nil, ring: ring, backoff: (0.05, 0.1),
                                    open: { try opener.open() })
        capture.start()
        Thread.sleep(forTimeInterval: 0.5)
        // 0, 0.05, 0.15, 0.25, 0.35, 0.45: about six attempts in half a second, not thousands.
        XCTAssertLessThanOrEqual(opener.count, 7)
        XCTAssertGreaterThanOrEqual(opener.count, 2, "it does retry")
        let stopped = Date()
        capture.stop()
        XCTAssertTrue(capture.join(timeout: 1))
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 0.2)
        var retries: [Double] = []
        for c in drain(ring) {
            for case .deviceUnavailable(_, let retryIn) in c.notices { retries.append(retryIn) }
        }
        XCTAssertEqual(Array(retries.prefix(3)), [0.05, 0.1, 0.1], "doubling, capped")
    }

    func testAStalledDeviceStillStopsPromptly() {
        let stalled = FakePCM([])
        let ring = SampleRing(capacity: 1000)
        let capture = CaptureThread(deviceName: "stalled", pcm: stalled, ring: ring)
        capture.start()
        Thread.sleep(forTimeInterval: 0.1)
        let stopped = Date()
        capture.stop()
        XCTAssertTrue(capture.join(timeout: 1))
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 0.5)
    }
}
