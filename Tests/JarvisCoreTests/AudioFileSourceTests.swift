import XCTest
@testable import JarvisCore

/// The repository's audio-fixtures folder.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("audio-fixtures")

func readAll(_ path: String, chunk: Int = 1600) throws(AudioInputError) -> [Int16] {
    let source = try AudioFileSource(path: path)
    var out: [Int16] = []
    while true {
        let c = try source.read(maxSamples: chunk)
        if c.isEmpty { return out }
        out += c
    }
}

/// A 44-byte canonical WAV header followed by `payload`.
func wav(channels: Int, rate: Int, bits: Int, dataBytesClaimed: Int, payload: [UInt8]) -> Data {
    var d = Data()
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { d.append(contentsOf: $0) } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { d.append(contentsOf: $0) } }
    d.append(contentsOf: Array("RIFF".utf8)); u32(36 + payload.count); d.append(contentsOf: Array("WAVE".utf8))
    d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(channels); u32(rate)
    u32(rate * channels * bits / 8); u16(channels * bits / 8); u16(bits)
    d.append(contentsOf: Array("data".utf8)); u32(dataBytesClaimed)
    d.append(contentsOf: payload)
    return d
}

final class AudioFileSourceTests: XCTestCase {
    var tmp: URL!

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tmp)
    }

    func write(_ name: String, _ data: Data) -> String {
        let url = tmp.appendingPathComponent(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: data), "wrote \(url.path)")
        return url.path
    }

    func assertError(_ path: String, _ code: AudioInputError.Code, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try readAll(path)
            XCTFail("expected \(code) for \(path)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            XCTAssertTrue(error.message.contains(path), "the message names the file", file: file, line: line)
            XCTAssertTrue(error.message.hasSuffix("."), "one sentence", file: file, line: line)
            XCTAssertFalse(error.message.contains(".)"), "no full stop inside it: \(error.message)", file: file, line: line)
        }
    }

    func testEveryEncodingDecodesToTheSame16kHzSignal() throws {
        let reference = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)
        XCTAssertEqual(reference.count, 54_368, accuracy: 2)
        for name in ["scroll_down_u8_8k.wav", "scroll_down_s24_48k_stereo.wav", "scroll_down_f32_22k.wav",
                     "scroll_down_s32_44k.wav", "scroll_down.flac"] {
            let path = fixtures.appendingPathComponent("enc").appendingPathComponent(name).path
            let samples = try readAll(path)
            XCTAssertEqual(Double(samples.count), Double(reference.count), accuracy: 40, name)
            // Same speech: normalised correlation with the reference is high (8-bit 8 kHz loses the most).
            let n = min(samples.count, reference.count)
            var dot = 0.0, a2 = 0.0, b2 = 0.0
            for i in 0..<n {
                let a = Double(samples[i]), b = Double(reference[i])
                dot += a * b; a2 += a * a; b2 += b * b
            }
            XCTAssertGreaterThan(dot / sqrt(a2 * b2), name.contains("u8_8k") ? 0.5 : 0.9, name)
        }
    }

    func testChunkSizeDoesNotChangeTheSamples() throws {
        let path = fixtures.appendingPathComponent("enc/scroll_down_f32_22k.wav").path
        XCTAssertEqual(try readAll(path, chunk: 160), try readAll(path, chunk: 7919))
    }

    func testStereoIsAveraged() throws {
        // Left +1000, right -1000 → mono 0; left 2000, right 0 → 1000.
        var payload: [UInt8] = []
        for _ in 0..<100 { for v in [Int16(1000), -1000, 2000, 0] { withUnsafeBytes(of: v.littleEndian) { payload += $0 } } }
        let path = write("stereo.wav", wav(channels: 2, rate: 16_000, bits: 16, dataBytesClaimed: payload.count, payload: payload))
        let samples = try readAll(path)
        XCTAssertEqual(samples.count, 200)
        XCTAssertEqual(samples[0], 0)
        XCTAssertEqual(samples[1], 1000)
    }

    func testMissingFileDirectoryAndEmptyFile() {
        assertError(tmp.appendingPathComponent("nope.wav").path, .notFound)
        assertError(tmp.path, .isDirectory)
        assertError(write("empty.wav", Data()), .empty)
    }

    func testNonAudioAndTruncatedFilesAreRejected() {
        assertError(write("text.wav", Data("this is not audio at all, just some words\n".utf8)), .unsupported)
        let header = wav(channels: 1, rate: 16_000, bits: 16, dataBytesClaimed: 1000, payload: [])
        assertError(write("truncated.wav", header.prefix(20)), .unsupported)
    }

    func testLyingHeadersAreRejected() {
        let payload = [UInt8](repeating: 0, count: 200)
        assertError(write("huge.wav", wav(channels: 1, rate: 16_000, bits: 16, dataBytesClaimed: 2_000_000_000, payload: payload)), .malformed)
        assertError(write("zero-ch.wav", wav(channels: 0, rate: 16_000, bits: 16, dataBytesClaimed: 200, payload: payload)), .malformed)
        assertError(write("zero-rate.wav", wav(channels: 1, rate: 0, bits: 16, dataBytesClaimed: 200, payload: payload)), .malformed)
    }

    func testAWellFormedTinyFileIsFine() throws {
        var payload: [UInt8] = []
        for i in 0..<480 { withUnsafeBytes(of: Int16(i).littleEndian) { payload += $0 } }
        let path = write("tiny.wav", wav(channels: 1, rate: 48_000, bits: 16, dataBytesClaimed: payload.count, payload: payload))
        XCTAssertEqual(Double(try readAll(path).count), 160, accuracy: 2)
    }

    /// Standard input is copied, to its end, into a file libsndfile can seek in: the bytes of a pipe arrive whole.
    func testStandardInputIsStagedWhole() throws {
        let bytes = try Data(contentsOf: fixtures.appendingPathComponent("scroll_down.wav"))
        let pipe = Pipe()
        let writer = Thread { pipe.fileHandleForWriting.write(bytes); try? pipe.fileHandleForWriting.close() }
        writer.start()
        let staged = try AudioFileSource.stageStandardInput(pipe.fileHandleForReading.fileDescriptor)
        defer { unlink(staged) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: staged)), bytes, "more than one 64 KiB read, in order")
        XCTAssertEqual(try readAll(staged), try readAll(fixtures.appendingPathComponent("scroll_down.wav").path))
    }

    /// A terminal on standard input is an error at once, not a wait for someone to type audio.
    func testATerminalOnStandardInputIsAnError() throws {
        // A pseudo-terminal's master side is a terminal too (isatty), and needs no unlocking to be one.
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try XCTSkipIf(terminal < 0 || isatty(terminal) != 1, "no pseudo-terminal here")
        defer { close(terminal) }
        XCTAssertThrowsError(try AudioFileSource.stageStandardInput(terminal)) { error in
            XCTAssertEqual((error as? AudioInputError)?.code, .unreadable)
            XCTAssertTrue("\(error)".hasPrefix("Standard input is a terminal"), "\(error)")
        }
    }

    /// A WAV that came through a pipe may claim more audio than it holds (its writer could not seek back to set
    /// the length: sox writes 0x7FFFF000); from a file the same header is a lie.
    func testAStreamedHeaderIsOnlyALieInAFile() {
        let payload = [UInt8](repeating: 0, count: 200)
        let path = write("streamed.wav", wav(channels: 1, rate: 16_000, bits: 16, dataBytesClaimed: 0x7FFF_F000, payload: payload))
        XCTAssertNil(wavHeaderProblem(path: path, streamed: true))
        XCTAssertNotNil(wavHeaderProblem(path: path))
    }
}
