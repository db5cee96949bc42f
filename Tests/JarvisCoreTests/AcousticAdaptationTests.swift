import XCTest
@testable import JarvisCore

/// The acoustic model's transform for speech in noise (`AcousticAdaptation`) and how a decoder takes one.
final class AcousticAdaptationTests: XCTestCase {
    let model = ModelPaths.debianDefault

    override func setUpWithError() throws {
        try XCTSkipIf(model.problem() != nil, "pocketsphinx-en-us is not installed")
    }

    func testTheTrainedTransformIsOneClassOverThreeStreams() throws {
        XCTAssertEqual(AcousticAdaptation.streamLengths(of: AcousticAdaptation.noisySpeechText), [13, 13, 13])
        let adaptation = try XCTUnwrap(AcousticAdaptation.noisySpeech(forModelIn: model.acousticModel))
        XCTAssertEqual(adaptation.streamLengths, [13, 13, 13])
        XCTAssertTrue(adaptation === AcousticAdaptation.noisySpeech(forModelIn: model.acousticModel), "read once")
    }

    func testMalformedTransformsAreRefused() {
        let good = AcousticAdaptation.noisySpeechText
        let numbers = good.split(whereSeparator: \.isWhitespace)
        for bad in ["", "1", "garbage", "2\n3\n13\n", numbers.dropLast().joined(separator: " "),
                    (numbers + ["1.0"]).joined(separator: " "), good.replacingOccurrences(of: "0.", with: "x.")] {
            XCTAssertNil(AcousticAdaptation.streamLengths(of: bad), bad.prefix(40).description)
            XCTAssertThrowsError(try AcousticAdaptation(text: bad))
        }
        XCTAssertEqual(AcousticAdaptation.streamLengths(of: "1 1 2  1 0 0 1  0.5 -0.5  1 1"), [2])
    }

    /// Another model (another means file) is not given a transform trained for the installed one.
    func testAnotherModelGetsNoTransform() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-other-model-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertNil(AcousticAdaptation.noisySpeech(forModelIn: folder), "no means file")
        var means = try Data(contentsOf: URL(fileURLWithPath: model.acousticModel + "/means"))
        means[means.count - 1] ^= 1
        try means.write(to: URL(fileURLWithPath: folder + "/means"))
        XCTAssertNil(AcousticAdaptation.noisySpeech(forModelIn: folder), "one bit changed")
    }

    /// The transform changes what the decoder hears; the identity, and going back to none, hear what the model
    /// as installed hears, to the score (PocketSphinx transforms the means read again, not the last ones).
    func testTheTransformTakesEffectAndGoingBackRestoresTheModel() throws {
        let audio = try readAll(fixtures.appendingPathComponent("noisy_page_down.wav").path)[...]
        let adapted = try XCTUnwrap(AcousticAdaptation.noisySpeech(forModelIn: model.acousticModel))
        let generator = GrammarGenerator(commands: CommandSet.builtin())
        for fast in [true, false] {
            let decoder = try PocketSphinxDecoder(model: model, extraArguments: [("-cmn", "batch")], fastGaussians: fast)
            try decoder.addGraph(name: "phrase", generator.phraseGraph(["hey", "jarvis", "page", "down"]))
            let plain = try XCTUnwrap(try decoder.decodeUtterance(audio, search: "phrase"))
            decoder.adaptation = adapted
            let heardAdapted = try XCTUnwrap(try decoder.decodeUtterance(audio, search: "phrase"))
            XCTAssertNotEqual(heardAdapted.acousticScore, plain.acousticScore, "fast \(fast)")
            XCTAssertEqual(try decoder.decodeUtterance(audio, search: "phrase"), heardAdapted, "the same transform again")
            decoder.adaptation = nil
            XCTAssertEqual(try decoder.decodeUtterance(audio, search: "phrase"), plain, "back to the model (fast \(fast))")
            decoder.adaptation = try AcousticAdaptation.identity(streamLengths: adapted.streamLengths)
            XCTAssertEqual(try decoder.decodeUtterance(audio, search: "phrase"), plain, "the identity (fast \(fast))")
        }
    }

    /// PocketSphinx reads the model's means again for a new transform and ends the process when it cannot:
    /// a model removed under a running decoder gives an error instead.
    func testAModelThatCannotBeReadAgainIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-model-\(UUID())").path
        try FileManager.default.copyItem(atPath: model.acousticModel, toPath: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var paths = model
        paths.acousticModel = folder
        let decoder = try PocketSphinxDecoder(model: paths, extraArguments: [("-cmn", "batch")])
        try decoder.addGraph(name: "phrase", GrammarGenerator(commands: CommandSet.builtin()).phraseGraph(["scroll", "down"]))
        let audio = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)[...]
        XCTAssertNotNil(try decoder.decodeUtterance(audio, search: "phrase"))
        try FileManager.default.removeItem(atPath: folder + "/means")
        decoder.adaptation = try XCTUnwrap(AcousticAdaptation.noisySpeech(forModelIn: model.acousticModel))
        XCTAssertThrowsError(try decoder.decodeUtterance(audio, search: "phrase")) { error in
            XCTAssertTrue("\(error)".contains("cannot read"), "\(error)")
        }
    }
}
