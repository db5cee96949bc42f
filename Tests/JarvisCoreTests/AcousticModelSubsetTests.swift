import Synchronization
import XCTest
@testable import JarvisCore

/// The live decoder's cut of the acoustic model (`AcousticModelSubset`), on Debian's en-us model.
final class AcousticModelSubsetTests: XCTestCase {
    let model = ModelPaths.debianDefault

    override func setUpWithError() throws {
        try XCTSkipIf(model.problem() != nil, "pocketsphinx-en-us is not installed")
    }

    /// "hey" (HH EY) and "jarvis" (JH AA R V AH S): every triphone of these words' own phones in the whole
    /// model is kept (first and last phones with any cross-word context, inner ones between their
    /// neighbours), plus the ones PocketSphinx backs off to for contexts the model lacks; no other phone's.
    /// The senones they use are renumbered after the context-independent ones.
    func testKeepsTheTriphonesOfTheWordsAndTheirSenones() throws {
        let whole = try BinaryModelDefinition(path: model.acousticModel + "/mdef")
        let subset = try AcousticModelSubset(modelFolder: model.acousticModel,
                                             pronunciations: [["HH", "EY"], ["JH", "AA", "R", "V", "AH", "S"]])
        let rows = subset.modelDefinition.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let phones = rows.filter { $0.last == "N" }
        XCTAssertEqual(phones.count, whole.ciPhones.count + subset.triphoneCount)
        let triphones = Set(phones.filter { $0[1] != "-" }.map { $0[0...3].joined(separator: " ") })
        XCTAssertEqual(Set(triphones.map { $0.split(separator: " ")[0] }), ["HH", "EY", "JH", "AA", "R", "V", "AH", "S"])
        let name = { (id: Int) in whole.ciPhones[id].name }
        let own = whole.triphones.filter { t in
            switch (name(Int(t.base)), name(Int(t.left)), name(Int(t.right)), t.position) {
            case ("HH", _, "EY", .begin), ("EY", "HH", _, .end), ("JH", _, "AA", .begin), ("AA", "JH", "R", .internal),
                 ("R", "AA", "V", .internal), ("V", "R", "AH", .internal), ("AH", "V", "S", .internal),
                 ("S", "AH", _, .end): true
            default: false
            }
        }
        XCTAssertGreaterThan(own.count, 100)
        for t in own {
            let key = "\(name(Int(t.base))) \(name(Int(t.left))) \(name(Int(t.right))) \(t.position.letter)"
            XCTAssertTrue(triphones.contains(key), "\(key) is missing")
        }
        XCTAssertLessThan(triphones.count, own.count + 60, "few back-off triphones")
        XCTAssertFalse(triphones.contains("AA JH R b"), "not a context these words have")
        let senoneIDs = phones.flatMap { $0[6..<($0.count - 1)].compactMap { Int($0) } }
        XCTAssertEqual(senoneIDs.max(), subset.senoneCount - 1)
        XCTAssertEqual(Set(senoneIDs).count, subset.senoneCount, "every senone kept is used")
        // The weights: one byte per senone in each row (3 streams × 128 Gaussians), after the header.
        XCTAssertGreaterThanOrEqual(subset.mixtureWeights.count, 3 * 128 * subset.senoneCount)
        XCTAssertLessThan(subset.mixtureWeights.count, 3 * 128 * subset.senoneCount + 1_000)
    }

    /// `shared` hands back the subset made for the same words, and makes a new one for other words (the
    /// cache is keyed on the pronunciations, not just the model).
    func testSharedSubsetFollowsThePronunciations() throws {
        let jarvis = [["HH", "EY"], ["JH", "AA", "R", "V", "AH", "S"]], davis = [["D", "EY", "V", "AH", "S"]]
        let made = try AcousticModelSubset(modelFolder: model.acousticModel, pronunciations: davis)
        let first = try AcousticModelSubset.shared(modelFolder: model.acousticModel, pronunciations: jarvis)
        let again = try AcousticModelSubset.shared(modelFolder: model.acousticModel, pronunciations: jarvis)
        XCTAssertEqual(first.modelDefinition, again.modelDefinition)
        let other = try AcousticModelSubset.shared(modelFolder: model.acousticModel, pronunciations: davis)
        XCTAssertNotEqual(other.modelDefinition, first.modelDefinition)
        XCTAssertEqual(other.modelDefinition, made.modelDefinition)
        XCTAssertEqual(other.mixtureWeights, made.mixtureWeights)
    }

    /// The property that matters: a decoder over the subset hears the same path as one over the whole model,
    /// word for word and frame for frame, with the acoustic score within 2 % (the live decoder's wake grammar
    /// over the fixture's "hey jarvis, scroll down"; measured 1.3 %: senones no longer computed for contexts
    /// that are not in the subset change the per-frame normalisation a little).
    func testDecoderOverTheSubsetHearsTheSameAsOverTheWholeModel() throws {
        let fixture = try WakeGrammarFixture(model: model, loopPhones: GrammarGenerator.broadPhones)
        defer { fixture.remove() }
        let (graph, paths) = (fixture.graph, fixture.paths)
        let subset = try AcousticModelSubset(modelFolder: model.acousticModel, pronunciations: fixture.pronunciations)
        XCTAssertLessThan(subset.triphoneCount, 40_000)
        let folder = try subset.writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audio = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)[...]
        var hypotheses: [Hypothesis] = []
        for extra in [[], [("-mdef", folder + "/mdef"), ("-sendump", folder + "/sendump")]] {
            let decoder = try PocketSphinxDecoder(model: paths, extraArguments: [("-cmn", "batch")] + extra)
            try decoder.addGraph(name: "wake", graph)
            hypotheses.append(try XCTUnwrap(try decoder.decodeUtterance(audio, search: "wake")))
        }
        XCTAssertEqual(hypotheses[0].spokenWords.map(\.word).prefix(2), ["hey", "jarvis"])
        XCTAssertEqual(hypotheses[1].words, hypotheses[0].words)
        XCTAssertNotEqual(hypotheses[0].acousticScore, 0)
        XCTAssertEqual(Double(hypotheses[1].acousticScore), Double(hypotheses[0].acousticScore),
                       accuracy: 0.02 * Double(abs(hypotheses[0].acousticScore)))
    }

    /// The cached subset (`cachedFolder`): made once, in PocketSphinx's binary format, then found again for the
    /// same pronunciations (not for others); a decoder over it hears exactly what one over the text subset
    /// hears (the same path and scores: the binary file is the same definition); a damaged folder is made
    /// again; the cache keeps the `cachedSubsets` most recently used.
    func testCachedSubsetIsBinaryFoundAgainAndHearsTheSame() throws {
        let cache = NSTemporaryDirectory() + "/jarvis-subset-cache-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let fixture = try WakeGrammarFixture(model: model)
        defer { fixture.remove() }
        let (graph, paths, pronunciations) = (fixture.graph, fixture.paths, fixture.pronunciations)

        let cached = try XCTUnwrap(try AcousticModelSubset.cachedFolder(
            modelFolder: model.acousticModel, pronunciations: pronunciations, cacheDirectory: cache))
        XCTAssertTrue(AcousticModelSubset.isComplete(folder: cached))
        let binary = try Data(contentsOf: URL(fileURLWithPath: cached + "/mdef"))
        XCTAssertEqual(binary.prefix(4), Data("BMDF".utf8), "PocketSphinx's binary format, as the installed model's")
        XCTAssertEqual(try AcousticModelSubset.cachedFolder(modelFolder: model.acousticModel,
                                                            pronunciations: pronunciations.reversed(), cacheDirectory: cache),
                       cached, "the same pronunciations in another order: the same folder")
        let other = try XCTUnwrap(try AcousticModelSubset.cachedFolder(
            modelFolder: model.acousticModel, pronunciations: [["HH", "EY"]], cacheDirectory: cache))
        XCTAssertNotEqual(other, cached)

        let text = try AcousticModelSubset(modelFolder: model.acousticModel, pronunciations: pronunciations)
            .writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: text) }
        let audio = try readAll(fixtures.appendingPathComponent("scroll_down.wav").path)[...]
        var hypotheses: [Hypothesis] = []
        for folder in [text, cached] {
            let decoder = try PocketSphinxDecoder(model: paths, extraArguments: [
                ("-cmn", "batch"), ("-mdef", folder + "/mdef"), ("-sendump", folder + "/sendump"),
            ])
            try decoder.addGraph(name: "wake", graph)
            hypotheses.append(try XCTUnwrap(try decoder.decodeUtterance(audio, search: "wake")))
        }
        XCTAssertEqual(hypotheses[0].spokenWords.map(\.word).prefix(2), ["hey", "jarvis"])
        XCTAssertEqual(hypotheses[1], hypotheses[0])

        // A damaged definition is found and made again.
        try Data("0.3\n".utf8).write(to: URL(fileURLWithPath: cached + "/mdef"))
        XCTAssertFalse(AcousticModelSubset.isComplete(folder: cached))
        XCTAssertEqual(try AcousticModelSubset.cachedFolder(modelFolder: model.acousticModel,
                                                            pronunciations: pronunciations, cacheDirectory: cache), cached)
        XCTAssertTrue(AcousticModelSubset.isComplete(folder: cached))

        // Older subsets beyond `cachedSubsets` are removed, the most recently used kept.
        for phone in ["AA", "AE", "AH", "AO", "AW"] {
            _ = try AcousticModelSubset.cachedFolder(modelFolder: model.acousticModel, pronunciations: [["HH", phone]],
                                                     cacheDirectory: cache)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasPrefix("am-") }
        XCTAssertEqual(left.count, AcousticModelSubset.cachedSubsets)
        XCTAssertFalse(left.contains((cached as NSString).lastPathComponent))
    }

    /// Processes (here threads) making the same subset at once all get the one complete folder: each makes its
    /// own under a temporary name, the first rename wins and the others take it.
    func testSubsetMadeByManyAtOnceEndsAsOneFolder() throws {
        let cache = NSTemporaryDirectory() + "/jarvis-subset-race-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let results = Mutex<[String?]>([])
        let modelFolder = model.acousticModel
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let folder = try? AcousticModelSubset.cachedFolder(modelFolder: modelFolder,
                                                               pronunciations: [["HH", "EY"]], cacheDirectory: cache)
            results.withLock { $0.append(folder) }
        }
        let folders = results.withLock { $0 }
        XCTAssertEqual(folders.count, 4)
        XCTAssertEqual(Set(folders).count, 1, "\(folders)")
        let folder = try XCTUnwrap(folders.first ?? nil)
        XCTAssertTrue(AcousticModelSubset.isComplete(folder: folder))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache), [(folder as NSString).lastPathComponent])
    }

    /// Files the subset cannot read are reported (the caller then loads the whole model), never a crash.
    func testUnreadableModelsAreUnsupported() throws {
        let folder = NSTemporaryDirectory() + "/jarvis-subset-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let word = [["HH", "EY"]]
        XCTAssertThrowsError(try AcousticModelSubset(modelFolder: folder, pronunciations: word), "no files")
        let mdef = try Data(contentsOf: URL(fileURLWithPath: model.acousticModel + "/mdef"))
        for bytes in [Data("0.3\n42 n_base\n".utf8), mdef.prefix(3), mdef.prefix(5_000), mdef.prefix(mdef.count - 9)] {
            try bytes.write(to: URL(fileURLWithPath: folder + "/mdef"))
            XCTAssertThrowsError(try AcousticModelSubset(modelFolder: folder, pronunciations: word))
        }
        try mdef.write(to: URL(fileURLWithPath: folder + "/mdef"))
        XCTAssertThrowsError(try AcousticModelSubset(modelFolder: folder, pronunciations: word), "no sendump")
        let sendump = try Data(contentsOf: URL(fileURLWithPath: model.acousticModel + "/sendump"))
        try sendump.prefix(sendump.count - 1).write(to: URL(fileURLWithPath: folder + "/sendump"))
        XCTAssertThrowsError(try AcousticModelSubset(modelFolder: folder, pronunciations: word), "truncated")
        try sendump.write(to: URL(fileURLWithPath: folder + "/sendump"))
        XCTAssertThrowsError(try AcousticModelSubset(modelFolder: folder, pronunciations: [["HH", "QQ"]]), "phone")
        XCTAssertNoThrow(try AcousticModelSubset(modelFolder: folder, pronunciations: word))
    }
}

/// The built-in commands' wake grammar for "hey jarvis" and a dictionary of its words written for a decoder
/// (`paths.dictionary`; `remove()` deletes it): what the live decoder hears, for tests of the model's parts.
struct WakeGrammarFixture {
    let graph: GrammarGraph
    let dictionary: GrammarDictionary
    var paths: ModelPaths

    init(model: ModelPaths, loopPhones: [String]? = nil) throws {
        let commands = CommandSet.builtin()
        var generator = GrammarGenerator(commands: commands)
        if let loopPhones { generator.loopPhones = loopPhones }
        graph = generator.wakeGraph(wakeWords: ["hey", "jarvis"])
        dictionary = try GrammarDictionary(vocabulary: commands.vocabulary.union(["hey", "jarvis"]), from: model.dictionary)
        paths = model
        paths.dictionary = try dictionary.writeTemporary()
    }

    /// The phones of every pronunciation of the grammar's words.
    var pronunciations: [[String]] {
        let words = Set(graph.transitions.compactMap(\.word))
        return dictionary.entries.filter { words.contains(String($0.word.prefix { $0 != "(" })) }
            .map { $0.phones.split(separator: " ").map(String.init) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: paths.dictionary) }
}
