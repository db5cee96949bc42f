import XCTest
@testable import JarvisCore

/// The checks of a model's files made before PocketSphinx loads them (`ModelCheck`), and what sphinxbase's log
/// says when a load fails (`SphinxLog`).
final class ModelCheckTests: XCTestCase {
    let model = ModelPaths.debianDefault

    override func setUpWithError() throws {
        try XCTSkipIf(model.problem() != nil, "pocketsphinx-en-us is not installed")
    }

    func data(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func testDebiansModelPasses() throws {
        XCTAssertNil(ModelCheck.problem(model))
        XCTAssertNil(ModelCheck.binaryDefinitionProblem(try data(model.acousticModel + "/mdef")))
    }

    /// Cut anywhere, the definition is damaged: in its header, its names, its tree, its phones, its sequences.
    func testATruncatedDefinitionIsDamagedWhereverItIsCut() throws {
        let mdef = try data(model.acousticModel + "/mdef")
        for length in [3, 8, 100, 1_100, 1_200, 5_000, 1_500_000, 2_500_000, mdef.count - 1] {
            XCTAssertNotNil(ModelCheck.binaryDefinitionProblem(mdef.prefix(length)), "cut at \(length) of \(mdef.count)")
        }
    }

    /// Bytes changed in place: a phone's senone sequence, a senone, a tree node pointing past the tree.
    func testIndicesOutOfRangeAreDamage() throws {
        let mdef = try data(model.acousticModel + "/mdef")
        // The layout of Debian's en-us model: header 12 + 1,052 + 40 bytes; 42 names; 142,108 tree nodes;
        // 137,095 phones; then 87,972 senones.
        let header = 12 + 1_052 + 40
        var namesEnd = header
        for _ in 0..<42 { namesEnd = mdef[namesEnd...].firstIndex(of: 0)! + 1 }
        namesEnd = header + (namesEnd - header + 3) / 4 * 4
        let phones = namesEnd + 142_108 * 8, senones = phones + 137_095 * 12 + 4
        func corrupted(at offset: Int, _ bytes: [UInt8]) -> Data {
            var copy = mdef
            copy.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
            return copy
        }
        XCTAssertNil(ModelCheck.binaryDefinitionProblem(corrupted(at: senones, Array(mdef[senones..<(senones + 2)]))),
                     "the offsets are right: the same bytes change nothing")
        XCTAssertEqual(ModelCheck.binaryDefinitionProblem(corrupted(at: phones + 12 * 500, [0xff, 0xff, 0, 0])),
                       "a phone names a senone sequence or transition matrix it does not have")
        XCTAssertEqual(ModelCheck.binaryDefinitionProblem(corrupted(at: senones + 2 * 1000, [0xff, 0x7f])),
                       "a senone sequence names a senone it does not have")
        XCTAssertEqual(ModelCheck.binaryDefinitionProblem(corrupted(at: namesEnd + 4, [0xff, 0xff, 0xff, 0x00])),
                       "its context tree points outside itself")
    }

    func testATextDefinitionIsLeftToPocketSphinx() {
        XCTAssertNil(ModelCheck.binaryDefinitionProblem(Data("0.3\n42 n_base\n".utf8)))
    }

    func testFeatureParameters() throws {
        let debian = String(decoding: try data(model.acousticModel + "/feat.params"), as: UTF8.self)
        XCTAssertNil(ModelCheck.featureParametersProblem(debian))
        XCTAssertNil(ModelCheck.featureParametersProblem("# a comment\n-nfilt 25 # trailing\n-unknown thing\n-lowerf .5"))
        XCTAssertEqual(ModelCheck.featureParametersProblem(debian + "\n-nfilt"), "option '-nfilt' has no value")
        XCTAssertEqual(ModelCheck.featureParametersProblem("-nfilt many"), "option -nfilt needs a whole number, not 'many'")
        XCTAssertEqual(ModelCheck.featureParametersProblem("-upperf high"), "option -upperf needs a number, not 'high'")
        XCTAssertEqual(ModelCheck.featureParametersProblem("-remove_noise maybe"),
                       "option -remove_noise needs yes or no, not 'maybe'")
    }

    func testATruncatedTrieLanguageModelIsDamaged() throws {
        XCTAssertNil(ModelCheck.languageModelProblem(path: model.languageModel))
        let truncated = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-truncated-\(UUID()).lm.bin")
        defer { try? FileManager.default.removeItem(at: truncated) }
        try data(model.languageModel).prefix(300_000).write(to: truncated)
        XCTAssertEqual(ModelCheck.languageModelProblem(path: truncated.path),
                       "The language model '\(truncated.path)' is truncated or damaged: its sections do not add up to its size.")
    }

    func testAFileInNoLanguageModelFormatIsReported() throws {
        let folder = FileManager.default.temporaryDirectory
        let cases: [(String, Data, Bool)] = [
            ("random.lm.bin", Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }), false),
            ("empty.lm", Data(), false),
            ("preamble.arpa", Data("A model made by hand.\n\n\\data\\\nngram 1=2\n".utf8), true),
            ("model.lm.gz", Data([0x1f, 0x8b, 8, 0, 0, 0]), true),
        ]
        for (name, bytes, usable) in cases {
            let url = folder.appendingPathComponent("jarvis-\(UUID())-\(name)")
            defer { try? FileManager.default.removeItem(at: url) }
            try bytes.write(to: url)
            let problem = ModelCheck.languageModelProblem(path: url.path)
            XCTAssertEqual(problem == nil, usable, "\(name): \(problem ?? "usable")")
            if !usable { XCTAssertTrue(problem?.contains("is not one sphinxbase reads") == true, problem ?? name) }
        }
        XCTAssertEqual(ModelCheck.languageModelProblem(path: "/nonexistent/en-us.lm.bin"),
                       "The language model '/nonexistent/en-us.lm.bin' cannot be read.")
    }

    /// Debian's model with the first `bytes` of its file `name` in place of the whole: a copy (links to the
    /// other files) in a temporary folder, removed after the test.
    func modelCut(_ name: String, to bytes: Int) throws -> ModelPaths {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-model-\(UUID())").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for other in try FileManager.default.contentsOfDirectory(atPath: model.acousticModel) where other != name {
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + other, withDestinationPath: model.acousticModel + "/" + other)
        }
        try data(model.acousticModel + "/" + name).prefix(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        var paths = model
        paths.acousticModel = folder
        return paths
    }

    /// A decoder checks its model itself, whoever makes it: a truncated definition is an error, not a crash.
    func testADecoderRefusesADamagedDefinition() throws {
        XCTAssertThrowsError(try PocketSphinxDecoder(model: try modelCut("mdef", to: 5_000))) { error in
            XCTAssertTrue("\(error)".contains("mdef' is damaged: it ends too early (5000 bytes)"), "\(error)")
        }
    }

    /// A failed load says why, in sphinxbase's own words about the first thing that went wrong.
    func testAFailedLoadSaysWhy() throws {
        let paths = try modelCut("means", to: 50_000)
        XCTAssertThrowsError(try PocketSphinxDecoder(model: paths)) { error in
            XCTAssertTrue("\(error)".contains("Failed to read density data from file '\(paths.acousticModel)/means'"), "\(error)")
        }
        XCTAssertNil(SphinxLog.takeError(), "the error was taken by the failed load")
        XCTAssertNoThrow(try PocketSphinxDecoder(model: model))
        XCTAssertNil(SphinxLog.takeError(), "a good load logs no error")
    }
}
