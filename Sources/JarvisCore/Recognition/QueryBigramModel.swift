import CQueryBigrams
import Foundation

/// The word pairs search queries are made of ("stock prices", "for stock", "bus schedule"), with the
/// probability of the second word after the first (log10), as a bigram language model that the general model is
/// mixed with when it hears a search's query (`RecognizerSettings.queryModelWeight`). The pairs come from
/// SymSpell's English bigram dictionary (`scripts/make-query-bigrams.py`), compiled into the binary.
public struct QueryBigramModel: Sendable {
    /// First word → its followers and their log10 probabilities.
    public let followers: [String: [String: Double]]

    /// Reads "first<TAB>second log10p<TAB>second log10p…" lines; a malformed pair is skipped.
    public init(text: String) {
        var followers: [String: [String: Double]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard let first = fields.first, fields.count > 1 else { continue }
            var next: [String: Double] = [:]
            for pair in fields.dropFirst() {
                let parts = pair.split(separator: " ")
                guard parts.count == 2, let p = Double(parts[1]), p <= 0 else { continue }
                next[String(parts[0])] = p
            }
            if !next.isEmpty { followers[String(first), default: [:]].merge(next) { $1 } }
        }
        self.followers = followers
    }

    /// The pairs compiled into the binary (about 150,000), as `init(text:)` reads them.
    public static var builtinText: String { String(cString: jarvis_query_bigrams()) }

    /// The model as ARPA text over `vocabulary`: every word of it a unigram at `floor` (log10), so that outside
    /// the pairs the general model alone decides, and the pairs whose two words it holds as bigrams.
    public func arpa(vocabulary: Set<String>, floor: Double = -7) -> String {
        var bigrams: [String: [String: Double]] = [:]
        for (first, next) in followers where vocabulary.contains(first) {
            let kept = next.filter { vocabulary.contains($0.key) }
            if !kept.isEmpty { bigrams[first] = kept }
        }
        let words = vocabulary.subtracting(["<s>"]).union(["</s>"]).sorted()
        return bigramARPA(unigrams: words.map { ($0, "\(floor)") }, bigrams: bigrams)
    }

    /// The model over `vocabulary` (`arpa(vocabulary:)`) in sphinxbase's binary format: from the cache of
    /// pruned language models (`PrunedLanguageModel`), made there first when missing. Made from ARPA text
    /// at each load, the model cost a search's first decode about 0.8 s of CPU.
    /// `text`: the pairs as `init(text:)` reads them, parsed only when the cache lacks the model;
    /// `cacheDirectory`: the folder to use instead of the cache folders (tests).
    public static func cachedBinary(vocabulary: Set<String>, text: String = builtinText,
                                    cacheDirectory: String? = nil) throws(DecoderError) -> String {
        // "q1": the model's form (`arpa(vocabulary:)`, its floor, `bigramARPA`); another form needs another version.
        var key = "q1|\(fnv1a(text.utf8))|"
        for word in vocabulary.sorted() { key += word + " " }
        let name = "queries-\(String(fnv1a(key.utf8), radix: 16)).lm.bin"
        let directories = cacheDirectory.map { [$0] } ?? PrunedLanguageModel.defaultCacheDirectories()
        let made = try PrunedLanguageModel.cachedModel(named: name, in: directories) { target in
            // Written under temporary names and renamed: processes making the same model at once never read a
            // partial file.
            let arpaPath = PrunedLanguageModel.temporaryPath(beside: target, suffix: ".arpa.tmp")
            let binaryPath = PrunedLanguageModel.temporaryPath(beside: target)
            defer {
                try? FileManager.default.removeItem(atPath: arpaPath)
                try? FileManager.default.removeItem(atPath: binaryPath)
            }
            let arpa = Data(QueryBigramModel(text: text).arpa(vocabulary: vocabulary).utf8)
            return FileManager.default.createFile(atPath: arpaPath, contents: arpa)
                && (try? NGramModel.convert(arpaPath, to: binaryPath)) != nil && rename(binaryPath, target) == 0
        }
        if let made { return made }
        throw DecoderError(operation: "language model", status: -1, detail: "cannot make the query model in any cache "
                               + "folder (tried \(directories.joined(separator: ", ")))")
    }
}
