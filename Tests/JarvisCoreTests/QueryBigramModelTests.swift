import Foundation
import XCTest
@testable import JarvisCore

/// The word pairs of search queries (`QueryBigramModel`), mixed into the general language model for a search.
final class QueryBigramModelTests: XCTestCase {
    let text = "stock\tprices -1.8\tmarket -1.0\nfor\tstock -2.5\tbadline\tpizza x\nbroken\n"

    func testReadsEachFirstWordsFollowersAndSkipsMalformedPairs() {
        let model = QueryBigramModel(text: text)
        XCTAssertEqual(model.followers["stock"], ["prices": -1.8, "market": -1.0])
        XCTAssertEqual(model.followers["for"], ["stock": -2.5])
        XCTAssertNil(model.followers["broken"])
    }

    /// Every word of the vocabulary is a floored unigram (a word the mix's models do not all hold would escape the
    /// mix); only the pairs whose two words it holds are bigrams; sphinxbase reads the text and scores the pairs.
    func testArpaOverAVocabularyScoresItsPairsAndFloorsTheRest() throws {
        let arpa = QueryBigramModel(text: text).arpa(vocabulary: ["stock", "prices", "for", "cheap"])
        XCTAssertFalse(arpa.contains("market"), "a pair whose word the vocabulary lacks")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-queries-\(UUID()).arpa").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(arpa.utf8)))
        let model = try NGramModel(path: path)
        XCTAssertEqual(Set(model.words), ["<s>", "</s>", "stock", "prices", "for", "cheap"])
        XCTAssertEqual(model.log10Score(["stock", "prices"]), -1.8, accuracy: 0.01)
        XCTAssertEqual(model.log10Score(["for", "stock"]), -2.5, accuracy: 0.01)
        XCTAssertEqual(model.log10Score(["for", "cheap"]), -7, accuracy: 0.01)
        XCTAssertEqual(model.log10Score(["cheap"]), -7, accuracy: 0.01)
    }

    /// The pairs compiled in (scripts/make-query-bigrams.py): queries' word pairs, none into a function word
    /// ("football score was") or a word of another language.
    func testTheBuiltinPairsHoldQueriesAndNoPairIntoAFunctionWord() {
        let model = QueryBigramModel(text: QueryBigramModel.builtinText)
        XCTAssertGreaterThan(model.followers.values.reduce(0) { $0 + $1.count }, 100_000)
        XCTAssertNotNil(model.followers["stock"]?["prices"])
        XCTAssertNotNil(model.followers["for"]?["stock"])
        XCTAssertNotNil(model.followers["used"]?["cars"])
        XCTAssertNil(model.followers["score"]?["was"])
        XCTAssertNil(model.followers["for"]?["de"])
        XCTAssertFalse(model.followers.values.contains { $0["the"] != nil || $0["is"] != nil })
    }

    /// The model in sphinxbase's binary format is made once per vocabulary and pairs, then read from the cache.
    func testTheBinaryModelIsCachedPerVocabulary() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-queries-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let cached = { (vocabulary: Set<String>, text: String) throws -> String in
            try QueryBigramModel.cachedBinary(vocabulary: vocabulary, text: text, cacheDirectory: cache)
        }
        let vocabulary: Set<String> = ["stock", "prices", "for"]
        let first = try cached(vocabulary, text)
        XCTAssertTrue(first.hasPrefix(cache + "/"))
        XCTAssertTrue(TrieLanguageModel.isComplete(path: first))
        XCTAssertEqual(try NGramModel(path: first).log10Score(["stock", "prices"]), -1.8, accuracy: 0.01)
        // Read from the cache, not made again (made again, it would be renamed into place: another file).
        let inode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int }
        let made = try inode(first)
        XCTAssertEqual(try cached(vocabulary, text), first)
        XCTAssertEqual(try inode(first), made)
        XCTAssertNotEqual(try cached(vocabulary.union(["cheap"]), text), first, "another vocabulary, another model")
        XCTAssertNotEqual(try cached(vocabulary, text + "cheap\tstock -1.0\n"), first, "other pairs, another model")
        // No folder to make it in: an error, which the recogniser reports once and hears searches without the model.
        XCTAssertThrowsError(try QueryBigramModel.cachedBinary(vocabulary: vocabulary, text: text,
                                                               cacheDirectory: "/proc/jarvis-no-cache"))
    }
}
