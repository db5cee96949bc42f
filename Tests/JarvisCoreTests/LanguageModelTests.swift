import Foundation
import XCTest
@testable import JarvisCore

/// The trie reader and the pruner, checked against sphinxbase: it writes the binary models we read, and it
/// scores the models we write.
final class LanguageModelTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-lm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A small trigram model: every bigram's history and every trigram's parent and history are present.
    static let smallARPA = """
        \\data\\
        ngram 1=7
        ngram 2=6
        ngram 3=3

        \\1-grams:
        -1.0000 </s> 0.0000
        -99.0000 <s> -0.3000
        -0.8000 search -0.2500
        -0.9000 for -0.2000
        -1.2000 pizza -0.1500
        -1.5000 recipes -0.1000
        -2.0000 boston -0.1200

        \\2-grams:
        -0.3000 <s> search -0.1000
        -0.1000 search for -0.0500
        -0.7000 for pizza -0.0400
        -1.1000 for boston -0.0300
        -0.2000 pizza recipes -0.0200
        -0.4000 recipes </s> 0.0000

        \\3-grams:
        -0.0500 <s> search for
        -0.6000 search for pizza
        -0.1500 for pizza recipes

        \\end\\

        """

    func writeSmallModel() throws -> String {
        let arpa = folder.appendingPathComponent("small.arpa").path
        try Self.smallARPA.write(toFile: arpa, atomically: true, encoding: .utf8)
        let bin = folder.appendingPathComponent("small.lm.bin").path
        try NGramModel.convert(arpa, to: bin)
        return bin
    }

    /// The n-grams of a model as ARPA lines would list them (words oldest first) with their log10 scores.
    func ngrams(of model: TrieLanguageModel) -> [String: Float] {
        var result: [String: Float] = [:]
        for (l, level) in model.levels.enumerated() {
            for e in 0..<level.count {
                let words = model.words(level: l, entry: e).map { model.words[Int($0)] }
                result[words.joined(separator: " ")] = level.log10Probability[e]
            }
        }
        return result
    }

    func testReadsTheNGramsSphinxbaseWrote() throws {
        let model = try TrieLanguageModel(path: writeSmallModel())
        XCTAssertEqual(model.order, 3)
        XCTAssertEqual(Set(model.words), ["</s>", "<s>", "search", "for", "pizza", "recipes", "boston"])
        let read = ngrams(of: model)
        // Each n-gram of the ARPA text with its score (quantised to 16 bits above unigrams: a few bins here).
        var expected: [String: Float] = [:]
        var order = 0
        for line in Self.smallARPA.split(separator: "\n") {
            if line.hasPrefix("\\"), line.hasSuffix("-grams:"), let n = Int(line.dropFirst().prefix(1)) {
                order = n
                continue
            }
            let parts = line.split(separator: " ")
            guard order > 0, parts.count > order, let score = Float(parts[0]) else { continue }
            expected[parts[1...order].joined(separator: " ")] = score
        }
        XCTAssertEqual(expected.count, 7 + 6 + 3)
        for (ngram, score) in expected {
            guard let got = read[ngram] else { XCTFail("missing n-gram '\(ngram)'"); continue }
            XCTAssertEqual(got, score, accuracy: 0.001, ngram)
        }
        XCTAssertEqual(read.count, 7 + 6 + 3)
        let pizza = try XCTUnwrap(model.id(of: "pizza")), recipes = try XCTUnwrap(model.id(of: "recipes"))
        let forWord = try XCTUnwrap(model.id(of: "for"))
        XCTAssertEqual(model.log10Probability(of: recipes, after: [forWord, pizza]), -0.15, accuracy: 0.001)
        // "boston recipes" is not in the model: backoff(boston) + P(recipes).
        let boston = try XCTUnwrap(model.id(of: "boston"))
        XCTAssertEqual(model.log10Probability(of: recipes, after: [boston]), -0.12 - 1.5, accuracy: 0.001)
    }

    func testScoresAgreeWithSphinxbaseOnTheInstalledModel() throws {
        let path = ModelPaths.debianDefault.languageModel
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no \(path)") }
        let model = try TrieLanguageModel(path: path)
        let reference = try NGramModel(path: path)
        XCTAssertEqual(model.levels.map(\.count).first, reference.counts.first)
        var generator = SplitMix(seed: 7)
        var checked = 0
        for l in 0..<model.order {
            for _ in 0..<200 {
                let e = Int(generator.next() % UInt64(model.levels[l].count))
                let ids = model.words(level: l, entry: e)
                XCTAssertEqual(model.find(ids), e)
                let words = ids.map { model.words[Int($0)] }
                XCTAssertEqual(Double(model.levels[l].log10Probability[e]), reference.log10Score(words), accuracy: 0.001,
                               words.joined(separator: " "))
                checked += 1
            }
        }
        // Word sequences the model has no n-gram for: both back off the same way.
        for _ in 0..<300 {
            let ids = (0..<3).map { _ in Int32(generator.next() % UInt64(model.levels[0].count)) }
            let words = ids.map { model.words[Int($0)] }
            guard !words.contains("<s>") else { continue }
            XCTAssertEqual(Double(model.log10Probability(of: ids[2], after: Array(ids[..<2]))),
                           reference.log10Score(words), accuracy: 0.001, words.joined(separator: " "))
        }
        XCTAssertEqual(checked, 200 * model.order)
    }

    func testTheInstalledModelCutToItsCommonWordsScoresAsBefore() throws {
        let source = ModelPaths.debianDefault.languageModel
        guard FileManager.default.fileExists(atPath: source) else { throw XCTSkip("no \(source)") }
        let target = folder.appendingPathComponent("common.lm.bin").path
        try PrunedLanguageModel.make(source: source, pruning: LanguageModelPruning(vocabularySize: 2_000,
                                                                                   keeping: ["jarvis"]),
                                     at: target)
        let pruned = try TrieLanguageModel(path: target)
        XCTAssertEqual(pruned.words.count, 2_002, "2,000 words, jarvis and <s> (improbable as a word)")
        XCTAssertTrue(pruned.words.contains("jarvis"))
        XCTAssertGreaterThan(pruned.levels[2].count, 10_000)
        // sphinxbase reads what we wrote, and every kept n-gram scores as in the source model.
        let before = try NGramModel(path: source), after = try NGramModel(path: target)
        XCTAssertEqual(after.counts, pruned.levels.map(\.count))
        var generator = SplitMix(seed: 11)
        for l in 0..<pruned.order {
            for _ in 0..<150 {
                let e = Int(generator.next() % UInt64(pruned.levels[l].count))
                let words = pruned.words(level: l, entry: e).map { pruned.words[Int($0)] }
                XCTAssertEqual(after.log10Score(words), before.log10Score(words), accuracy: 0.0001,
                               words.joined(separator: " "))
            }
        }
        // A sequence without its own n-gram backs off the same way in both.
        XCTAssertEqual(after.log10Score(["jarvis", "the", "weather"]), before.log10Score(["jarvis", "the", "weather"]),
                       accuracy: 0.0001)
    }

    func testPruningKeepsTheWordsAndTheirScores() throws {
        let source = try writeSmallModel()
        let model = try TrieLanguageModel(path: source)
        // The three most probable words (</s>, search, for) and "pizza" kept by name; <s> always.
        let pruning = LanguageModelPruning(vocabularySize: 3, keeping: ["pizza", "unknown"])
        let target = folder.appendingPathComponent("pruned.lm.bin").path
        try PrunedLanguageModel.make(source: source, pruning: pruning, at: target)
        let pruned = try TrieLanguageModel(path: target)
        XCTAssertEqual(Set(pruned.words), ["</s>", "<s>", "search", "for", "pizza"])
        let kept = ngrams(of: pruned)
        XCTAssertEqual(Set(kept.keys), ["</s>", "<s>", "search", "for", "pizza", "<s> search", "search for",
                                        "for pizza", "<s> search for", "search for pizza"])
        let original = ngrams(of: model)
        for (ngram, score) in kept {
            XCTAssertEqual(score, try XCTUnwrap(original[ngram]), accuracy: 0.001, ngram)
        }
        let scorer = try NGramModel(path: target)
        XCTAssertEqual(scorer.log10Score(["search", "for", "pizza"]), -0.6, accuracy: 0.001)
        XCTAssertEqual(scorer.counts, [5, 3, 2])
    }

    func testCappedPruningKeepsWhatLongerNGramsNeed() throws {
        let model = try TrieLanguageModel(path: writeSmallModel())
        // One trigram at most and no bigram of its own choosing: the kept trigram brings its parent and history.
        let kept = LanguageModelPruning(vocabularySize: 10, maxNGrams: [0, 1]).keptEntries(of: model)
        XCTAssertEqual(kept[2].filter { $0 }.count, 1)
        let trigram = try XCTUnwrap(kept[2].firstIndex(of: true))
        let words = model.words(level: 2, entry: trigram)
        let parent = try XCTUnwrap(model.find(words.dropFirst()))
        let history = try XCTUnwrap(model.find(words.dropLast()))
        XCTAssertTrue(kept[1][parent])
        XCTAssertTrue(kept[1][history])
        XCTAssertLessThanOrEqual(kept[1].filter { $0 }.count, 2)
    }

    func testTheCacheMakesAModelOnceForEachPruning() throws {
        let source = try writeSmallModel()
        let cache = folder.appendingPathComponent("cache").path
        let first = try PrunedLanguageModel.path(source: source, pruning: LanguageModelPruning(vocabularySize: 3),
                                                 cacheDirectory: cache)
        // A model made again would be a new file (written beside it, then renamed): a new inode.
        let made = try FileManager.default.attributesOfItem(atPath: first)[.systemFileNumber] as? Int
        let again = try PrunedLanguageModel.path(source: source, pruning: LanguageModelPruning(vocabularySize: 3),
                                                 cacheDirectory: cache)
        XCTAssertEqual(first, again)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: again)[.systemFileNumber] as? Int, made)
        let other = try PrunedLanguageModel.path(source: source,
                                                 pruning: LanguageModelPruning(vocabularySize: 3, keeping: ["boston"]),
                                                 cacheDirectory: cache)
        XCTAssertNotEqual(first, other)
        // A cached model damaged since (cut short) is made again.
        let whole = try Data(contentsOf: URL(fileURLWithPath: first))
        try whole.prefix(whole.count - 3).write(to: URL(fileURLWithPath: first))
        XCTAssertFalse(TrieLanguageModel.isComplete(path: first))
        XCTAssertEqual(try PrunedLanguageModel.path(source: source, pruning: LanguageModelPruning(vocabularySize: 3),
                                                    cacheDirectory: cache), first)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), whole)
        XCTAssertEqual(try TrieLanguageModel(path: other).words.contains("boston"), true)
        // Nothing half-written is left beside them.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache).count, 2)
    }

    func testTheCacheKeepsOnlyTheMostRecentlyUsedModels() throws {
        let source = try writeSmallModel()
        let cache = folder.appendingPathComponent("cache").path
        func path(_ keeping: Set<String>) throws -> String {
            try PrunedLanguageModel.path(source: source, pruning: LanguageModelPruning(vocabularySize: 2, keeping: keeping),
                                         cacheDirectory: cache)
        }
        let first = try path(["pizza"])
        // An interrupted run's leftover, 20 minutes old, and a fresh one (another process writing now).
        let old = cache + "/lm-0.lm.bin.1-2.tmp", fresh = cache + "/lm-1.lm.bin.3-4.tmp"
        XCTAssertTrue(FileManager.default.createFile(atPath: old, contents: Data([1])))
        XCTAssertTrue(FileManager.default.createFile(atPath: fresh, contents: Data([1])))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -1200)], ofItemAtPath: old)
        let second = try path(["boston"]), third = try path(["recipes"])
        // Using the first again makes it the most recent: the fourth model pushes out the second.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: first)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -50)], ofItemAtPath: second)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -40)], ofItemAtPath: third)
        XCTAssertEqual(try path(["pizza"]), first)
        let fourth = try path(["pizza", "boston"])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: cache).map { cache + "/" + $0 })
        XCTAssertEqual(left, [first, third, fourth, fresh])
    }

    func testMalformedFilesAreRejectedWithAReason() throws {
        let bin = try writeSmallModel()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bin))
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("text", Data("\\data\\\nngram 1=3\n".utf8)),
            ("header only", bytes.prefix(20)),
            ("truncated", bytes.prefix(bytes.count / 2)),
            ("one byte short", bytes.dropLast()),
            ("one byte long", bytes + [0]),
            ("children out of order", Self.withFirstChild(of: 3, setTo: 99, in: bytes)),
        ]
        for (name, data) in cases {
            let path = folder.appendingPathComponent(name).path
            try data.write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try TrieLanguageModel(path: path), name) { error in
                XCTAssertTrue("\(error)".contains("is not a usable sphinxbase trie language model"), "\(error)")
            }
        }
        XCTAssertThrowsError(try TrieLanguageModel(path: folder.appendingPathComponent("missing").path))
        XCTAssertFalse(TrieLanguageModel.isTrieModel(path: folder.appendingPathComponent("text").path))
        for (name, _) in cases where name != "children out of order" {  // the right size, bad content
            XCTAssertFalse(TrieLanguageModel.isComplete(path: folder.appendingPathComponent(name).path), name)
        }
        XCTAssertTrue(TrieLanguageModel.isComplete(path: bin))
        let installed = ModelPaths.debianDefault.languageModel
        if FileManager.default.fileExists(atPath: installed) {
            XCTAssertTrue(TrieLanguageModel.isComplete(path: installed))
        }
        XCTAssertTrue(TrieLanguageModel.isTrieModel(path: bin))
    }
}

extension LanguageModelTests {
    /// `bytes` (the small model) with unigram `index`'s first-child field overwritten: the right size, bad
    /// content. The unigram records follow the header (19 + 1 + 3 × 4 bytes), the quantiser type (4) and its
    /// three tables (3 × 65,536 floats); each record is 12 bytes, the field at offset 8.
    static func withFirstChild(of index: Int, setTo value: UInt32, in bytes: Data) -> Data {
        var copy = bytes
        let at = 19 + 1 + 12 + 4 + 3 * 65_536 * 4 + index * 12 + 8
        withUnsafeBytes(of: value.littleEndian) { copy.replaceSubrange(at..<(at + 4), with: $0) }
        return copy
    }
}

/// A small deterministic generator for sampling (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
