import XCTest
@testable import JarvisCore

/// The SIMD scorer of the acoustic model's Gaussians (`CGaussianScoring`): PocketSphinx's own senone scores
/// to the bit, frame by frame, in the decoders the recogniser uses.
final class GaussianScoringTests: XCTestCase {
    let model = ModelPaths.debianDefault

    override func setUpWithError() throws {
        try XCTSkipIf(model.problem() != nil, "pocketsphinx-en-us is not installed")
        try XCTSkipIf(GaussianScoring.kernel == "none", "not an x86-64 CPU: PocketSphinx scores")
    }

    override func tearDown() {
        GaussianScoring.setChecking(false)
        GaussianScoring.useKernel("avx2")
    }

    /// A grammar decoder (the second pass: batch CMN, every frame) and a live-style one (`-ds 2`: the full
    /// codebook search on every other frame only, the previous best Gaussians rescored on the others), with
    /// each kernel: in checking mode every frame is scored by PocketSphinx's function as well, on a copy of the
    /// state, and the senone scores, best-Gaussian lists and active codebooks must be the same to the bit.
    func testEveryFrameScoresAsPocketSphinxScoresIt() throws {
        let fixture = try WakeGrammarFixture(model: model)
        defer { fixture.remove() }
        let (graph, paths) = (fixture.graph, fixture.paths)
        let audio = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)[...]
        let noisy = try readAll(fixtures.appendingPathComponent("noisy_page_down.wav").path)[...]
        GaussianScoring.setChecking(true)
        for kernel in ["avx2", "sse2"] {
            guard GaussianScoring.useKernel(kernel) else { continue }
            for extra in [[("-cmn", "batch")], [("-cmn", "live"), ("-ds", "2")]] {
                let before = GaussianScoring.checkedFrames
                let decoder = try PocketSphinxDecoder(model: paths, extraArguments: extra)
                XCTAssertTrue(decoder.fastGaussians)
                try decoder.addGraph(name: "wake", graph)
                let words = try XCTUnwrap(try decoder.decodeUtterance(audio, search: "wake")).spokenWords.map(\.word)
                XCTAssertEqual(words.filter { !GrammarGenerator.isPhoneWord($0) }, ["hey", "jarvis", "scroll", "down"],
                               "\(kernel) \(extra)")
                _ = try decoder.decodeUtterance(noisy, search: "wake")
                let after = GaussianScoring.checkedFrames
                XCTAssertGreaterThan(after.frames - before.frames, (audio.count + noisy.count) / 160 - 10,
                                     "every frame of both clips compared (\(kernel) \(extra))")
                XCTAssertEqual(after.mismatches, before.mismatches, "\(kernel) \(extra)")
            }
        }
    }

    /// Decoders with and without the scorer hear the same paths with the same scores: over the general language
    /// model (its search asks for other senones, frame by frame), a free phone loop and the wake grammar.
    func testTheSamePathsWithAndWithoutTheScorer() throws {
        let audio = try readAll(fixtures.appendingPathComponent("search_pizza.wav").path)[...]
        let commands = CommandSet.builtin()
        let generator = GrammarGenerator(commands: commands)
        var paths = model
        let dictionary = try GrammarDictionary(vocabulary: commands.vocabulary.union(["hey", "jarvis"]),
                                               from: model.dictionary)
        paths.dictionary = try dictionary.writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: paths.dictionary) }
        var results: [[Hypothesis?]] = []
        for fast in [true, false] {
            let general = try PocketSphinxDecoder(model: model, extraArguments: [("-cmn", "batch")], fastGaussians: fast)
            let grammar = try PocketSphinxDecoder(model: paths, extraArguments: [("-cmn", "batch")], fastGaussians: fast)
            XCTAssertEqual(general.fastGaussians, fast)
            XCTAssertEqual(grammar.fastGaussians, fast)
            try general.addLanguageModel(name: "lm", path: model.languageModel)
            try grammar.addGraph(name: "phones", generator.phoneLoopGraph())
            try grammar.addGraph(name: "wake", generator.wakeGraph(wakeWords: ["hey", "jarvis"]))
            results.append([try general.decodeUtterance(audio, search: "lm"),
                            try grammar.decodeUtterance(audio, search: "phones"),
                            try grammar.decodeUtterance(audio, search: "wake")])
        }
        let lm = try XCTUnwrap(results[0][0])
        XCTAssertTrue(lm.text.contains("search for"), lm.text)
        XCTAssertNotEqual(lm.acousticScore, 0)
        XCTAssertGreaterThan(results[0][1]?.words.count ?? 0, 10, "the phone loop's path")
        XCTAssertEqual(results[0][2]?.spokenWords.prefix(4).map(\.word), ["hey", "jarvis", "search", "for"])
        XCTAssertEqual(results[0], results[1])
    }

    /// Decoders of the same model share one interleaved copy of its Gaussians, released with the last of them.
    func testDecodersOfOneModelShareTheCopy() throws {
        let before = GaussianScoring.sharedModels
        var first: PocketSphinxDecoder? = try PocketSphinxDecoder(model: model)
        let during = GaussianScoring.sharedModels
        XCTAssertLessThanOrEqual(during, before + 1)
        XCTAssertGreaterThanOrEqual(during, 1)
        var second: PocketSphinxDecoder? = try PocketSphinxDecoder(model: model, extraArguments: [("-ds", "2")])
        XCTAssertEqual(GaussianScoring.sharedModels, during, "the same means and variances: one copy")
        XCTAssertTrue(first!.fastGaussians && second!.fastGaussians)
        first = nil
        XCTAssertEqual(GaussianScoring.sharedModels, during)
        second = nil
        if before == 0 { XCTAssertEqual(GaussianScoring.sharedModels, 0, "released with the last decoder") }
    }
}
