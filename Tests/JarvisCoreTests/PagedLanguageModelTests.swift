import Foundation
import XCTest
@testable import JarvisCore

/// The paged trie reader (`jarvis_paged_lm_read`) against sphinxbase's own reader of the same files: the same
/// scores to the unit, while reading only what its lookups search.
extension LanguageModelTests {
    /// The model at `path` read as `loading` says, with the decoder's weights.
    func weightedModel(_ path: String, loading: PocketSphinxDecoder.LanguageModelLoading) throws -> NGramModel {
        let model = try NGramModel(path: path, loading: loading)
        model.applyWeights(languageWeight: 6.5, insertionPenalty: 0.65)
        return model
    }

    /// Both readers of `path`, with the decoder's weights.
    func readers(_ path: String) throws -> (whole: NGramModel, paged: NGramModel) {
        let whole = try weightedModel(path, loading: .whole), paged = try weightedModel(path, loading: .paged)
        XCTAssertFalse(whole.isPaged)
        XCTAssertTrue(paged.isPaged, "the paged reader declined \(path)")
        return (whole, paged)
    }

    /// Asserts that both give `word` after `history` the same score and n-gram length.
    func assertSameScore(_ models: (whole: NGramModel, paged: NGramModel), _ word: Int32, _ history: [Int32],
                         file: StaticString = #filePath, line: UInt = #line) {
        let expected = models.whole.score(word, history: history), got = models.paged.score(word, history: history)
        XCTAssertEqual(got.score, expected.score, "\(word) after \(history)", file: file, line: line)
        XCTAssertEqual(got.used, expected.used, "\(word) after \(history)", file: file, line: line)
    }

    func testEveryScoreOfASmallModelIsSphinxbases() throws {
        let models = try readers(try writeSmallModel())
        let ids = Array(Int32(0)..<Int32(models.whole.words.count))
        XCTAssertEqual(ids.count, 7)
        // Every word after every history of up to two words (n-grams, backoffs, the sentence start), in an
        // order that changes the history at every lookup and in one that keeps it (sphinxbase's history cache).
        for w in ids {
            assertSameScore(models, w, [])
            for h1 in ids {
                assertSameScore(models, w, [h1])
                for h2 in ids { assertSameScore(models, w, [h1, h2]) }
            }
        }
        for h1 in ids {
            for h2 in ids {
                for w in ids { assertSameScore(models, w, [h1, h2]) }
            }
        }
        // A history longer than the order is cut to it; an unknown word in it ends it.
        assertSameScore(models, 3, [2, 0, 4, 5])
        assertSameScore(models, 3, [2, -1, 4])
        // A known n-gram scores above its backoff: "search for pizza" vs "boston for pizza".
        let (pizza, forWord, search, boston) = (models.paged.id(of: "pizza"), models.paged.id(of: "for"),
                                                models.paged.id(of: "search"), models.paged.id(of: "boston"))
        XCTAssertEqual(models.paged.score(pizza, history: [forWord, search]).used, 3)
        XCTAssertEqual(models.paged.score(pizza, history: [forWord, boston]).used, 2)
        XCTAssertGreaterThan(models.paged.score(pizza, history: [forWord, search]).score,
                             models.paged.score(pizza, history: [forWord, boston]).score)
    }

    func testTheInstalledModelScoresAsSphinxbaseWhileReadingOnlyWhatItsLookupsNeed() throws {
        let path = ModelPaths.debianDefault.languageModel
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no \(path)") }
        let models = try readers(path)
        let paged = models.paged
        XCTAssertEqual(paged.counts, models.whole.counts)
        let atOpen = paged.residentBytes
        XCTAssertLessThan(atOpen, 2_000_000, "at open only the unigram records (and a table by word) are read")
        XCTAssertGreaterThan(paged.fileBytes, 20_000_000)
        // Histories that are real n-grams of the model (so that its bigrams and trigrams are found), mixed with
        // random words (backoffs).
        let trie = try TrieLanguageModel(path: path)
        var generator = SplitMix(seed: 23)
        func random(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
        var queries: [(Int32, [Int32])] = []
        for _ in 0..<400 {
            let e = random(trie.levels[2].count)
            let words = trie.words(level: 2, entry: e)  // oldest first
            queries.append((words[2], [words[1], words[0]]))
            queries.append((words[2], [words[1]]))
            queries.append((Int32(random(trie.levels[0].count)), [words[1], words[0]]))
            queries.append((words[2], [Int32(random(trie.levels[0].count)), words[0]]))
        }
        for (word, history) in queries { assertSameScore(models, word, history) }
        let afterLookups = paged.residentBytes
        XCTAssertGreaterThan(afterLookups, atOpen)
        XCTAssertLessThan(afterLookups, paged.fileBytes / 2, "1,600 lookups read \(afterLookups) bytes")
        // The same lookups again read nothing more.
        for (word, history) in queries { _ = paged.score(word, history: history) }
        XCTAssertEqual(paged.residentBytes, afterLookups)
        XCTAssertEqual(paged.copyDrops, 0)

        // Under a small budget the copies are dropped again and again, and every score stays sphinxbase's.
        let bounded = try weightedModel(path, loading: .paged)
        bounded.setCopyBudget(200_000)
        for (word, history) in queries + queries.reversed() {
            XCTAssertEqual(bounded.score(word, history: history).score, models.whole.score(word, history: history).score)
        }
        XCTAssertGreaterThan(bounded.copyDrops, 1)
        XCTAssertLessThan(bounded.residentBytes, afterLookups)
    }

    func testAWordAddedAtRunTimeScoresAsInSphinxbase() throws {
        let models = try readers(try writeSmallModel())
        let added = (models.whole.addWord("zyzzyva", weight: 1), models.paged.addWord("zyzzyva", weight: 1))
        XCTAssertEqual(added.0, 7)
        XCTAssertEqual(added.1, added.0)
        XCTAssertEqual(models.paged.id(of: "zyzzyva"), 7)
        let search = models.paged.id(of: "search")
        assertSameScore(models, 7, [])
        assertSameScore(models, 7, [search])
        assertSameScore(models, 7, [search, 0])
        assertSameScore(models, search, [7])
        assertSameScore(models, models.paged.id(of: "for"), [search, 7])
    }

    func testFilesItCannotPageAreDeclinedNotMisread() throws {
        let bin = try writeSmallModel()
        XCTAssertTrue(NGramModel.canPage(path: bin))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bin))
        let unigramOnly = folder.appendingPathComponent("unigrams.arpa").path
        try "\\data\\\nngram 1=2\n\n\\1-grams:\n-0.3 hello\n-0.3 world\n\n\\end\\\n"
            .write(toFile: unigramOnly, atomically: true, encoding: .utf8)
        let unigramBin = folder.appendingPathComponent("unigrams.lm.bin").path
        try NGramModel.convert(unigramOnly, to: unigramBin)
        var quant0 = bytes
        quant0[19 + 1 + 12] = 0  // quantiser type 0: unquantised, a layout this reader does not know
        let cases: [(String, Data?)] = [
            ("empty", Data()),
            ("text", Data(Self.smallARPA.utf8)),
            ("header only", bytes.prefix(20)),
            ("truncated", bytes.prefix(bytes.count / 2)),
            ("one byte short", bytes.dropLast()),
            ("one byte long", bytes + [0]),
            ("unquantised", quant0),
            ("order 1", nil),
        ]
        for (name, data) in cases {
            let path: String
            if let data {
                path = folder.appendingPathComponent(name).path
                try data.write(to: URL(fileURLWithPath: path))
            } else {
                path = unigramBin
            }
            XCTAssertFalse(NGramModel.canPage(path: path), name)
        }
        XCTAssertFalse(NGramModel.canPage(path: folder.appendingPathComponent("missing").path))
        XCTAssertFalse(NGramModel.canPage(path: folder.path), "a directory")
        // Asked for paging, a file the paged reader declines is read whole.
        let text = try NGramModel(path: folder.appendingPathComponent("text").path, loading: .paged)
        XCTAssertFalse(text.isPaged)
        XCTAssertEqual(text.counts, [7, 6, 3])
    }

    /// Damaged n-gram arrays (the right size, random bytes) give some scores, never a read out of bounds: every
    /// child range and field is checked against the file.
    func testDamagedNGramsAreReadWithinTheFile() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try writeSmallModel()))
        // The unigrams' probabilities and children, then the bigram and trigram arrays; not the word list at the
        // end (4 + 42 bytes), nor the first and last children pointers (0 and the end of all children, checked
        // at open).
        let arrays = 19 + 1 + 12 + 4 + 3 * 65_536 * 4
        let unigramEnd = arrays + 7 * 12, listStart = bytes.count - 46
        var generator = SplitMix(seed: 5)
        var opened = 0
        for round in 0..<20 {
            var damaged = bytes
            for _ in 0..<(1 + round) {
                var at = arrays + Int(generator.next() % UInt64(listStart - arrays - 16))
                if at >= unigramEnd { at += 12 }
                if (arrays + 8..<arrays + 12).contains(at) { at += 4 }
                damaged[at] = UInt8(truncatingIfNeeded: generator.next())
            }
            let path = folder.appendingPathComponent("damaged-\(round).lm.bin").path
            try damaged.write(to: URL(fileURLWithPath: path))
            guard NGramModel.canPage(path: path) else { continue }
            let model = try NGramModel(path: path, loading: .paged)
            opened += 1
            let ids = Array(Int32(0)..<7)
            for w in ids {
                for h1 in ids {
                    for h2 in ids { XCTAssertLessThanOrEqual(model.score(w, history: [h1, h2]).used, 3) }
                }
            }
        }
        XCTAssertEqual(opened, 20, "the checks at open do not see damage inside the arrays")
    }

    func testAPagedModelKeepsScoringAfterItsFileIsRemoved() throws {
        let bin = try writeSmallModel()
        let paged = try NGramModel(path: bin, loading: .paged)
        let expected = try NGramModel(path: bin).score(4, history: [3, 2])
        try FileManager.default.removeItem(atPath: bin)
        XCTAssertEqual(paged.score(4, history: [3, 2]).score, expected.score, "the open file outlives its name")
        XCTAssertFalse(paged.pagedReadFailed)
    }

    func testAPagedModelWhoseFileIsCutShortBacksOffInsteadOfFailing() throws {
        let bin = try writeSmallModel()
        let paged = try NGramModel(path: bin, loading: .paged)
        let whole = try NGramModel(path: bin)
        let (recipes, pizza, forWord) = (paged.id(of: "recipes"), paged.id(of: "pizza"), paged.id(of: "for"))
        let unigram = whole.score(recipes, history: [])
        // Cut after the quantiser tables and unigrams: the n-gram arrays cannot be read any more.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: bin))
        try handle.truncate(atOffset: 19 + 1 + 12 + 4 + 3 * 65_536 * 4 + 8 * 12)
        try handle.close()
        let cut = paged.score(recipes, history: [pizza, forWord])
        XCTAssertTrue(paged.pagedReadFailed)
        XCTAssertEqual(cut.used, 1, "backed off to the unigram")
        XCTAssertLessThanOrEqual(cut.score, unigram.score, "the unigram, less the histories' backoffs")
    }
}

extension PipelineTests {
    /// A search decoded with the paged language model gives the events of the model read whole, without
    /// reading all of its file (measured: 5.3, 8.0 and 12.5 MB of the 22 MB; read by 4 KiB pages, 15–19 MB).
    func testSearchesWithThePagedLanguageModelGiveTheSameEvents() throws {
        for name in ["search_pizza.wav", "search_train_times.flac", "noisy_search_rome.wav"] {
            var whole = PipelineSettings()
            whole.recognizer.languageModelLoading = .whole
            let expected = try run(name, settings: whole).filter { $0.type != "end" }
            var events: [Event] = []
            let pipeline = try Pipeline(settings: PipelineSettings()) { events.append($0) }
            let samples = try readAll(fixtures.appendingPathComponent(name).path)
            for start in stride(from: 0, to: samples.count, by: 1600) {  // as `run` feeds it
                try pipeline.process(Array(samples[start..<min(samples.count, start + 1600)]))
            }
            let read = try XCTUnwrap(pipeline.languageModelResidentBytes, "\(name): the model is paged")
            try pipeline.finish()
            XCTAssertEqual(events.filter { $0.type != "end" }, expected, name)
            XCTAssertEqual(intents(events).map(\.name), ["search"], name)
            XCTAssertLessThan(read, 16_000_000, "\(name): \(read) bytes of the 22 MB model read")
        }
    }
}
